import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';

// Issue 17 item 1: the CLI compiles SQLite's WASM without TurboFan tier-up (src/core/index/wasmTier.ts). V8's own
// trace says which compiler produced each WASM function; a low tiering budget makes V8 tier up eagerly, so the
// control run (K0MARU_WASM_TIERUP=1) shows that the trace does see TurboFan when the tier-up is on.
const notes = Object.fromEntries(
  Array.from({ length: 200 }, (_, i) => [`n/note-${i}.md`, `---\ntitle: Note ${i}\n---\n# Note ${i}\n\nBody ${i} about caching, retries and [[note-${(i + 1) % 200}]].\n\n## More\n\nword${i} ${'text '.repeat(40)}\n`]),
);

function coldScan(env: NodeJS.ProcessEnv): { liftoff: number; turbofan: number } {
  const v = tempVault(notes);
  try {
    const r = spawnSync(process.execPath, ['--wasm-tiering-budget=1000', '--trace-wasm-compilation-times', DIST_CLI, 'scan'], {
      cwd: v.root,
      encoding: 'utf8',
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Indexed 200 note\(s\)/);
    return { liftoff: (r.stdout.match(/using Liftoff/g) ?? []).length, turbofan: (r.stdout.match(/using TurboFan/g) ?? []).length };
  } finally {
    v.cleanup();
  }
}

test('a CLI scan runs SQLite on Liftoff code only; K0MARU_WASM_TIERUP=1 restores the tier-up', () => {
  ensureBuilt();
  const quick = coldScan({ K0MARU_WASM_TIERUP: '' });
  assert.ok(quick.liftoff > 100, `the trace lists the Liftoff compiles (${quick.liftoff})`);
  assert.equal(quick.turbofan, 0, 'no WASM function tiered up to TurboFan');
  const control = coldScan({ K0MARU_WASM_TIERUP: '1' });
  assert.ok(control.turbofan > 0, `with the tier-up on, the same scan tiers functions up (${control.turbofan})`);
});

test('`k0maru mcp` serves for hours: it keeps the V8 tier-up for SQLite (only one-shot commands skip it)', () => {
  ensureBuilt();
  const v = tempVault(notes);
  try {
    const rpc = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'tier-test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'recall_memory', arguments: { query: 'caching retries', mode: 'bm25' } } },
    ].map((m) => JSON.stringify(m)).join('\n') + '\n';
    // stdin closes after the last request: the server answers what it has and exits.
    const r = spawnSync(process.execPath, ['--wasm-tiering-budget=1000', '--trace-wasm-compilation-times', DIST_CLI, 'mcp', '--vault', v.root], {
      cwd: v.root,
      input: rpc,
      encoding: 'utf8',
      env: { ...process.env, K0MARU_WASM_TIERUP: '' },
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.match(r.stdout, /"id":2/, `the recall was answered: ${r.stderr.slice(-400)}`);
    assert.ok((r.stdout.match(/using TurboFan/g) ?? []).length > 0, 'the long-lived server tiers SQLite up as V8 does by default');
  } finally {
    v.cleanup();
  }
});
