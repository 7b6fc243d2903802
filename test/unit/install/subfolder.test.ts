import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { installIntegrations } from '../../../src/core/install/index';
import { initVault } from '../../../src/core/vault/init';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';

/**
 * Issue 16 item 1: Claude Code started in a subfolder finds `.mcp.json` by walking up but expands
 * `${CLAUDE_PROJECT_DIR:-.}` with the variable unset, so `.` is the subfolder. Every configured command is spawned
 * exactly as written (variables expanded the way each client expands them), from a subfolder, with
 * CLAUDE_PROJECT_DIR absent from the environment — through a real MCP SDK client (initialize + tools/list).
 */

const ADR = '---\nstatus: accepted\n---\n# ADR-1: No eval\n\n## Invariants\n\n- deny: `eval(` | id: NO-EVAL | because: eval runs untrusted code.\n';

function project(): { root: string; sub: string; done(): void } {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), 'k0-subfolder-'));
  execFileSync('git', ['init', '-q'], { cwd: root });
  initVault({ projectRoot: root });
  writeFileSync(join(root, '.k0maru/wiki/02_Architecture/adr-001-no-eval.md'), ADR);
  const sub = join(root, 'src', 'deep');
  mkdirSync(sub, { recursive: true });
  installIntegrations(root, { command: `"${process.execPath}" "${DIST_CLI}"`, home: mkdtempSync(join(tmpdir(), 'k0-home-')) });
  return { root, sub, done: () => rmSync(root, { recursive: true, force: true }) };
}

/** `${VAR}`, `${VAR:-default}` (Claude Code) and `${workspaceFolder}` (Cursor, VS Code), with CLAUDE_PROJECT_DIR unset. */
function expand(arg: string, vars: Record<string, string>): string {
  return arg.replace(/\$\{([A-Za-z_]\w*)(?::-([^}]*))?\}/g, (_, name: string, dflt?: string) => vars[name] ?? dflt ?? '');
}

const cleanEnv = (root: string): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: root });

test('issue16-item1: every configured MCP command starts the server from a subfolder without CLAUDE_PROJECT_DIR', async () => {
  const p = project();
  try {
    const configs: [string, string, Record<string, string>][] = [
      ['.mcp.json', 'mcpServers', {}], // Claude Code: CLAUDE_PROJECT_DIR unset → "."
      ['.cursor/mcp.json', 'mcpServers', { workspaceFolder: p.root }],
      ['.vscode/mcp.json', 'servers', { workspaceFolder: p.root }],
      ['.gemini/settings.json', 'mcpServers', {}],
    ];
    for (const [file, key, vars] of configs) {
      const entry = JSON.parse(readFileSync(join(p.root, file), 'utf8'))[key].k0maru as { command: string; args: string[] };
      const transport = new StdioClientTransport({ command: entry.command, args: entry.args.map((a) => expand(a, vars)), cwd: p.sub, env: cleanEnv(p.root), stderr: 'pipe' });
      let err = '';
      transport.stderr?.on('data', (d) => (err += d));
      const client = new Client({ name: 'subfolder-client', version: '1' });
      try {
        await client.connect(transport);
      } catch (e) {
        assert.fail(`${file}: ${(e as Error).message}\n${err}`);
      }
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'get_project_loadout'), file);
        const r = await client.callTool({ name: 'get_project_loadout', arguments: {} });
        assert.match((r.content as { text: string }[])[0].text, /adr-001-no-eval/, `${file}: the server serves this project's vault`);
      } finally {
        await client.close();
      }
      assert.notEqual(entry.command, 'sh', `${file}: sh is not on a stock Windows PATH (issue 16 item 19)`);
    }
  } finally {
    p.done();
  }
});

test('issue16-item1: the Claude Code Stop hook command finds the project from a subfolder without CLAUDE_PROJECT_DIR', () => {
  const p = project();
  try {
    writeFileSync(join(p.root, 'src', 'agent.ts'), 'eval("1+1");\n');
    const settings = JSON.parse(readFileSync(join(p.root, '.claude/settings.json'), 'utf8'));
    const command = settings.hooks.Stop[0].hooks[0].command as string;
    const payload = JSON.stringify({ session_id: `s-${p.root}`, cwd: p.sub, hook_event_name: 'Stop', stop_hook_active: false });
    // Claude Code runs hook commands through the shell.
    const r = spawnSync('sh', ['-c', command], { cwd: p.sub, env: cleanEnv(p.root), input: payload, encoding: 'utf8' });
    assert.equal(r.status, 2, `the hook must block on the violation: ${r.stderr}`);
    assert.match(r.stderr, /\[NO-EVAL\] src\/agent\.ts:1/);
  } finally {
    p.done();
  }
});
