import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { nodeLauncherSource } from '../../../src/core/install/nodeLauncher';
import { bootstrapSource, SHELL_UNSAFE } from '../../../src/core/install/bootstrap';
import { DIST_CLI, REPO, ensureBuilt } from '../../helpers/build';

/**
 * Issue 16 item 19: agent configs run `node` (not `sh`, absent from a stock Windows PATH). The committed launcher's
 * lookup is run for real on this machine (Linux), and its Windows branch through `path.win32` with a file table —
 * the very text `init --install` commits, loaded as a module.
 */

interface Found {
  kind: 'script' | 'exec';
  script?: string;
  file?: string;
  args?: string[];
  shell?: boolean;
  via: string;
}
type Finder = (o: Record<string, unknown>) => Found | undefined;

function loadLauncher(recorded = 'k0maru'): { findK0maru: Finder; file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'k0-launcher-'));
  const file = join(dir, 'k0maru-mcp.cjs');
  writeFileSync(file, nodeLauncherSource('mcp', recorded));
  return { ...(require(file) as { findK0maru: Finder }), file, dir };
}

function win(files: Record<string, string>, env: Record<string, string>, recorded = '') {
  const { findK0maru, dir } = loadLauncher();
  rmSync(dir, { recursive: true, force: true });
  const table = new Map(Object.entries(files).map(([k, v]) => [k.toLowerCase(), v]));
  return findK0maru({
    root: 'C:\\Users\\dev\\proj',
    env,
    platform: 'win32',
    path: path.win32,
    exists: (p: string) => table.has(p.toLowerCase()),
    readText: (p: string) => table.get(p.toLowerCase()) ?? '',
    recorded,
  });
}

const PKG = JSON.stringify({ name: 'k0maru-agent-memory', bin: { k0maru: 'dist/cli.mjs' } });

test('issue16-item19: Windows branch — npm global prefix, project node_modules, recorded CLI, .cmd shims, K0MARU_BIN', () => {
  const npm = 'C:\\Users\\dev\\AppData\\Roaming\\npm';
  // A global `npm i -g`: the k0maru.cmd shim beside node_modules; the Path variable is spelled "Path" on Windows.
  const global = win({ [`${npm}\\k0maru.cmd`]: '', [`${npm}\\node_modules\\k0maru-agent-memory\\package.json`]: PKG, [`${npm}\\node_modules\\k0maru-agent-memory\\dist\\cli.mjs`]: '' }, { Path: `C:\\Windows\\system32;${npm}` });
  assert.deepEqual(global, { kind: 'script', script: `${npm}\\node_modules\\k0maru-agent-memory\\dist\\cli.mjs`, via: 'PATH' });

  const local = win({ 'C:\\Users\\dev\\proj\\node_modules\\k0maru-agent-memory\\package.json': PKG, 'C:\\Users\\dev\\proj\\node_modules\\k0maru-agent-memory\\dist\\cli.mjs': '' }, { Path: npm });
  assert.equal(local?.script, 'C:\\Users\\dev\\proj\\node_modules\\k0maru-agent-memory\\dist\\cli.mjs');

  const recorded = win({ 'D:\\tools\\k0maru\\dist\\cli.mjs': '' }, {}, '"C:\\Program Files\\nodejs\\node.exe" "D:\\tools\\k0maru\\dist\\cli.mjs"');
  assert.deepEqual(recorded, { kind: 'script', script: 'D:\\tools\\k0maru\\dist\\cli.mjs', via: 'recorded' });
  assert.equal(win({}, {}, '"C:\\Program Files\\nodejs\\node.exe" "D:\\gone\\cli.mjs"'), undefined, 'a recorded CLI missing on this machine is skipped');

  const shim = win({ 'C:\\bin\\k0maru.cmd': '' }, { PATH: 'C:\\bin' });
  assert.deepEqual(shim, { kind: 'exec', file: 'C:\\bin\\k0maru.cmd', args: [], shell: true, via: 'PATH' });
  const exe = win({ 'C:\\bin\\k0maru.exe': '' }, { PATH: 'C:\\bin' });
  assert.equal(exe?.shell, false);

  assert.deepEqual(win({}, { K0MARU_BIN: '"C:\\Program Files\\nodejs\\node.exe" "C:\\k0\\dist\\cli.mjs"' }), { kind: 'exec', file: 'C:\\Program Files\\nodejs\\node.exe', args: ['C:\\k0\\dist\\cli.mjs'], shell: false, via: 'K0MARU_BIN' });
  assert.equal(win({}, { Path: 'C:\\Windows' }), undefined);
});

test('issue16-item19: the bootstrap walks up Windows paths to the launcher and is safe inside double quotes in sh, cmd and PowerShell', () => {
  const boot = bootstrapSource('k0maru-mcp.cjs', 127);
  assert.doesNotMatch(boot, SHELL_UNSAFE);
  const run = (start: string, files: string[], env: Record<string, string> = {}) => {
    const calls: unknown[] = [];
    const fakeFs = { existsSync: (p: string) => files.includes(p) };
    const req = (m: string) => (m === 'fs' ? fakeFs : m === 'path' ? path.win32 : { main: (args: string[]) => calls.push({ launcher: m, args }) });
    const proc = { argv: ['C:\\node.exe', start, '--sidecar'], env, exitCode: 0 };
    const errors: string[] = [];
    new Function('require', 'process', 'console', boot)(req, proc, { error: (s: string) => errors.push(s) });
    return { calls, exitCode: proc.exitCode, errors };
  };
  const launcher = 'C:\\Users\\dev\\proj\\.k0maru\\bin\\k0maru-mcp.cjs';
  assert.deepEqual(run('C:\\Users\\dev\\proj\\src\\deep', [launcher]).calls, [{ launcher, args: ['--sidecar'] }]);
  assert.deepEqual(run('C:/Users/dev/proj/src', [launcher]).calls, [{ launcher, args: ['--sidecar'] }], 'forward slashes from a client work too');
  assert.deepEqual(run('C:\\', [launcher], { CLAUDE_PROJECT_DIR: 'C:\\Users\\dev\\proj' }).calls, [{ launcher, args: ['--sidecar'] }]);
  const none = run('C:\\elsewhere', [launcher]);
  assert.deepEqual([none.calls, none.exitCode], [[], 127]);
  assert.match(none.errors[0], /no \.k0maru\/bin\/k0maru-mcp\.cjs in C:\\elsewhere/);
});

test('issue16-item19: on Linux the committed launcher finds the CLI in node_modules, by K0MARU_BIN, or says it is missing', async () => {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), 'k0-launch-linux-'));
  try {
    mkdirSync(join(root, '.k0maru', 'bin'), { recursive: true });
    mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
    writeFileSync(join(root, '.k0maru', 'wiki', 'hello.md'), '# Hello\n\nA note.\n');
    const launcher = join(root, '.k0maru', 'bin', 'k0maru-mcp.cjs');
    writeFileSync(launcher, nodeLauncherSource('mcp', 'k0maru'));
    const env = { PATH: path.dirname(process.execPath), HOME: root }; // node, but no k0maru on PATH
    const missing = spawnSync(process.execPath, [launcher], { cwd: '/', env, encoding: 'utf8' });
    assert.equal(missing.status, 127);
    assert.match(missing.stderr, /k0maru: not found/);
    writeFileSync(join(root, '.k0maru', 'bin', 'k0maru-hook.cjs'), nodeLauncherSource('hook', 'k0maru'));
    const hookMissing = spawnSync(process.execPath, [join(root, '.k0maru', 'bin', 'k0maru-hook.cjs'), 'stop'], { cwd: '/', env, encoding: 'utf8', input: '{}' });
    assert.equal(hookMissing.status, 0, 'a guard that is not installed never blocks');

    // The package installed in the project (node_modules/k0maru-agent-memory is this repository).
    mkdirSync(join(root, 'node_modules'));
    symlinkSync(REPO, join(root, 'node_modules', 'k0maru-agent-memory'));
    for (const [label, extra] of [['node_modules', {}], ['K0MARU_BIN', { K0MARU_BIN: `"${process.execPath}" "${DIST_CLI}"` }]] as const) {
      const transport = new StdioClientTransport({ command: process.execPath, args: [launcher], cwd: '/', env: { ...env, ...extra }, stderr: 'pipe' });
      const client = new Client({ name: 'linux-launcher', version: '1' });
      await client.connect(transport);
      try {
        const r = await client.callTool({ name: 'recall_memory', arguments: { query: 'hello', mode: 'bm25' } });
        assert.match((r.content as { text: string }[])[0].text, /hello\.md/, label);
      } finally {
        await client.close();
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
