import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { installIntegrations, uninstallIntegrations } from '../../../src/core/install/index';
import { installAgents } from '../../../src/core/install/agents';
import { initVault } from '../../../src/core/vault/init';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), 'k0-install-'));
  execFileSync('git', ['init', '-q'], { cwd: root });
  initVault({ projectRoot: root });
  return root;
}
const read = (p: string) => readFileSync(p, 'utf8');

test('init --install writes every agent config, the launcher and both hooks; a second run changes nothing', () => {
  const root = repo();
  const home = mkdtempSync(join(tmpdir(), 'k0-home-'));
  try {
    const r = installIntegrations(root, { command: 'k0maru', home });
    for (const f of ['.mcp.json', '.cursor/mcp.json', '.vscode/mcp.json', '.gemini/settings.json', '.k0maru/bin/k0maru-mcp.cjs']) assert.ok(r.agents.changed.includes(f), f);
    const claude = JSON.parse(read(join(root, '.mcp.json'))).mcpServers.k0maru;
    assert.deepEqual([claude.command, claude.args[0], claude.args[2]], ['node', '-e', '${CLAUDE_PROJECT_DIR:-.}']);
    assert.ok(JSON.parse(read(join(root, '.vscode/mcp.json'))).servers.k0maru, 'VS Code uses the `servers` key');
    assert.match(JSON.parse(read(join(root, '.claude/settings.json'))).hooks.Stop[0].hooks[0].command, /'k0maru-hook\.cjs'.*" \. stop$/);
    assert.ok(existsSync(join(root, '.git/hooks/pre-commit')));
    assert.match(r.agents.windsurfSnippet, /k0maru-mcp/);
    assert.equal(existsSync(r.agents.windsurfFile), false, 'nothing written outside the repository without --global');
    const again = installIntegrations(root, { command: 'k0maru', home });
    assert.deepEqual(again.agents.changed, []);
    assert.deepEqual(again.hooks?.changed, []);
    installAgents(root, { command: 'k0maru', home, global: true });
    assert.ok(JSON.parse(read(join(home, '.codeium/windsurf/mcp_config.json'))).mcpServers.k0maru);
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});

test('existing entries are never clobbered and uninstall restores every file byte for byte', () => {
  const root = repo();
  try {
    const mcp = '{\n    "mcpServers": { "other": { "command": "other-server" } }\n}\n';
    const cursor = JSON.stringify({ mcpServers: { k0maru: { command: 'my-own-k0maru' } } });
    writeFileSync(join(root, '.mcp.json'), mcp);
    mkdirSync(join(root, '.cursor'));
    writeFileSync(join(root, '.cursor/mcp.json'), cursor);
    const r = installIntegrations(root, { command: 'k0maru' });
    assert.ok(r.agents.kept.some((k) => k.includes('.cursor/mcp.json')));
    assert.equal(read(join(root, '.cursor/mcp.json')), cursor);
    const merged = JSON.parse(read(join(root, '.mcp.json')));
    assert.deepEqual(Object.keys(merged.mcpServers).sort(), ['k0maru', 'other']);
    uninstallIntegrations(root);
    assert.equal(read(join(root, '.mcp.json')), mcp);
    assert.equal(read(join(root, '.cursor/mcp.json')), cursor);
    for (const f of ['.vscode/mcp.json', '.gemini/settings.json', '.k0maru/bin/k0maru-mcp.cjs', '.claude/settings.json', '.git/hooks/pre-commit']) assert.equal(existsSync(join(root, f)), false, f);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a config that is not valid JSON stops the install before anything is written', () => {
  const root = repo();
  try {
    mkdirSync(join(root, '.vscode'));
    writeFileSync(join(root, '.vscode/mcp.json'), '{ "servers": { broken');
    assert.throws(() => installAgents(root, { command: 'k0maru' }), /not a JSON object/);
    assert.equal(existsSync(join(root, '.mcp.json')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the configured command starts a working server from any working directory (as Cursor does, from /)', async () => {
  ensureBuilt();
  const root = repo();
  try {
    installAgents(root, { command: `"${process.execPath}" "${DIST_CLI}"` });
    const entry = JSON.parse(read(join(root, '.cursor/mcp.json'))).mcpServers.k0maru;
    const args = (entry.args as string[]).map((a) => a.replace('${workspaceFolder}', root));
    const transport = new StdioClientTransport({ command: entry.command, args, cwd: '/', env: { PATH: process.env.PATH ?? '' } });
    const client = new Client({ name: 'cursor-like', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'recall_memory'));
      const r = await client.callTool({ name: 'get_project_loadout', arguments: {} });
      assert.match((r.content as { text: string }[])[0].text, /^# Context Loadout: /);
    } finally {
      await client.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('upgrading an install of the sh era: the sh MCP launcher is deleted and listed, the old Stop hook entry is replaced, not doubled', () => {
  const root = repo();
  try {
    mkdirSync(join(root, '.k0maru/bin'), { recursive: true });
    writeFileSync(join(root, '.k0maru/bin/k0maru-mcp'), '#!/bin/sh\n# Written by k0maru. Finds k0maru on any machine\nexit 127\n');
    mkdirSync(join(root, '.claude'));
    const oldStop = 'sh "${CLAUDE_PROJECT_DIR:-.}/.k0maru/bin/k0maru-hook" stop';
    writeFileSync(join(root, '.claude/settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: oldStop, timeout: 60 }] }, { hooks: [{ type: 'command', command: 'echo mine' }] }] } }));
    const r = installIntegrations(root, { command: 'k0maru' });
    assert.deepEqual(r.agents.deleted, ['.k0maru/bin/k0maru-mcp']);
    assert.equal(existsSync(join(root, '.k0maru/bin/k0maru-mcp')), false);
    const stops = JSON.parse(read(join(root, '.claude/settings.json'))).hooks.Stop.flatMap((e: { hooks: { command: string }[] }) => e.hooks.map((h) => h.command));
    assert.equal(stops.length, 2, stops.join('\n'));
    assert.equal(stops.filter((c: string) => c.includes('k0maru-hook')).length, 1);
    assert.ok(stops.includes('echo mine'));
    assert.match(stops.find((c: string) => c.includes('k0maru-hook'))!, /^node -e /);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
