import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { gcSession } from '../../../src/core/gc';
import { MAX_TRAJECTORY_CHARS } from '../../../src/core/gc/gcSession';
import { MCP_ENTRY, textOf } from '../../helpers/mcpClient';
import { listFiles, tempRefsProject } from '../../helpers/files';

const project = () => tempRefsProject('k0-gcb-');

test('empty trajectory (as JSON text) comes back empty with a zero report', async () => {
  const r = await gcSession(project(), { trajectory_json: '{"session_id":"s","turns":[]}' });
  assert.deepEqual(r.trajectory.turns, []);
  assert.equal(r.report.trr, 0);
  assert.deepEqual(r.report.facts_kept, []);
  assert.equal(r.digest, '');
});

test('turns with missing optional fields are read; missing role or wrong types are coded errors naming the field', async () => {
  const ok = await gcSession(project(), { trajectory: { session_id: 's', turns: [{ role: 'user' }, { role: 'tool', tool_name: 'Bash' }, { role: 'assistant', content: 'x' }] } });
  assert.equal(ok.trajectory.turns[0].content, '');
  const cases: [unknown, RegExp][] = [
    [{ session_id: 's', turns: [null] }, /turns\.0/],
    [{ session_id: 's', turns: [42] }, /turns\.0/],
    [{ session_id: 's', turns: [{ role: '' }] }, /turns\.0\.role/],
    [{ session_id: 's', turns: [{ role: 'tool', tool_output: ['a'] }] }, /turns\.0\.tool_output/],
    [{ session_id: 's', turns: [{ role: 'user', tool_name: 7 }] }, /turns\.0\.tool_name/],
    [{ session_id: 's', turns: {} }, /turns/],
    [{ session_id: '', turns: [] }, /session_id/],
  ];
  for (const [traj, re] of cases) {
    const p = project();
    await assert.rejects(gcSession(p, { trajectory: traj }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT' && re.test(e.message), JSON.stringify(traj));
    assert.equal(listFiles(p.projectRoot).length, 0);
  }
});

test('unknown roles are kept verbatim even in the hot window with a big paste, and odd tool_input shapes are tolerated', async () => {
  const big = Array.from({ length: 500 }, (_, i) => `line ${i} error: nope`).join('\n');
  const turns = [
    { role: 'user', content: 'go' },
    { role: 'critic', content: big },
    { role: 'tool', tool_name: 'Bash', tool_input: ['ls', '-la'], tool_output: 'a\nb' },
    { role: 'tool', tool_name: 'Bash', tool_input: { command: ['ls', '-la'] }, tool_output: 'a\nb' },
    { role: 'tool', tool_name: 'Edit', tool_input: 'not an object', tool_output: 'ok' },
    { role: 'user', content: 'done' },
  ];
  const r = await gcSession(project(), { trajectory: { session_id: 's', turns }, hot_window: 10 });
  assert.deepEqual(r.trajectory.turns[1], turns[1]);
  assert.deepEqual(r.report.unknown_roles, [{ turn: 2, role: 'critic' }]);
  const cold = await gcSession(project(), { trajectory: { session_id: 's', turns }, hot_window: 1, warm_window: 0 });
  assert.match(cold.digest, /`ls -la`/);
});

test('a trajectory_json over the limit is refused with FILE_TOO_LARGE before it is parsed', async () => {
  const p = project();
  const huge = `{"session_id":"s","turns":[{"role":"user","content":"${'x'.repeat(MAX_TRAJECTORY_CHARS)}"}]}`;
  await assert.rejects(gcSession(p, { trajectory_json: huge }), (e: Error & { code?: string }) => e.code === 'FILE_TOO_LARGE');
  assert.equal(listFiles(p.projectRoot).length, 0);
});

function peakRssMb(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : NaN;
}

test('MCP: a 100 MB and a 40 MB trajectory_json get FILE_TOO_LARGE, memory stays bounded, the server keeps answering', { timeout: 240_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-gcb-mcp-'));
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', pathToFileURL(join(__dirname, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, MCP_ENTRY],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'k0maru-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const pid = transport.pid!;
    const baseline = peakRssMb(pid);
    const traj = (chars: number) => `{"session_id":"s","turns":[{"role":"user","content":"${'y'.repeat(chars)}"}]}`;
    const opts = { timeout: 200_000 };
    const r100 = await client.callTool({ name: 'gc_session_context', arguments: { trajectory_json: traj(100 * 1024 * 1024) } }, undefined, opts);
    assert.equal(r100.isError, true);
    assert.match(textOf(r100), /^FILE_TOO_LARGE: message of 100\.0 MB/);
    const after100 = peakRssMb(pid);
    const r40 = await client.callTool({ name: 'gc_session_context', arguments: { trajectory_json: traj(40 * 1024 * 1024) } }, undefined, opts);
    assert.equal(r40.isError, true);
    assert.match(textOf(r40), /^FILE_TOO_LARGE: trajectory_json is/);
    const after40 = peakRssMb(pid);
    const small = await client.callTool({ name: 'gc_session_context', arguments: { trajectory_json: '{"session_id":"s","turns":[{"role":"user","content":"hi"}]}' } });
    assert.notEqual(small.isError, true);
    assert.match(textOf(small), /Context GC/);
    console.log(`MCP server peak RSS: start ${baseline.toFixed(0)} MB, after 100 MB message ${after100.toFixed(0)} MB, after 40 MB message ${after40.toFixed(0)} MB`);
    // Bounded: the 100 MB message is never held (64 MB cap), the 40 MB one is refused before JSON parsing.
    assert.ok(after100 < 600, `peak RSS ${after100} MB`);
    assert.ok(after40 < 900, `peak RSS ${after40} MB`);
  } finally {
    await client.close();
  }
});
