import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { inspectLogNode, offloadLog } from '../../../src/core/offload';
import { runCli } from '../../../src/cli/main';
import { fixture } from './fixtures';

async function offloaded() {
  const root = mkdtempSync(join(tmpdir(), 'k0-inspect-'));
  const p = { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
  const raw = fixture('long-c-build-buried-error.log');
  const r = await offloadLog(p, { text: raw, threshold: 30 });
  return { p, raw, id: r.nodeId! };
}

test('inspect without options returns the raw log exactly (the seed contract)', async () => {
  const { p, raw, id } = await offloaded();
  const r = await inspectLogNode(p, { node_id: id });
  assert.equal(r.text + '\n', raw);
  assert.equal(r.total_lines, 1155);
  assert.equal(r.truncated, false);
});

test('inspect slices by line range and by grep, numbering the lines', async () => {
  const { p, id } = await offloaded();
  const slice = await inspectLogNode(p, { node_id: id, start_line: 572, end_line: 574 });
  assert.equal(slice.lines_returned, 3);
  assert.match(slice.text.split('\n')[1], /^\s+573\| src\/mod_0551\.c:7:10: error: ‘totl’ undeclared/);
  const g = await inspectLogNode(p, { node_id: id, grep: 'error:' });
  assert.equal(g.lines_returned, 1);
  assert.match(g.text, /573\|/);
  const capped = await inspectLogNode(p, { node_id: id, grep: '^cc ', max_lines: 5 });
  assert.equal(capped.lines_returned, 5);
  assert.equal(capped.truncated, true);
});

test('inspect rejects malformed ids (path traversal) and reports unknown ones', async () => {
  const { p } = await offloaded();
  // A file that traversal would reach if the id were used as a path.
  mkdirSync(join(p.projectRoot, 'etc'), { recursive: true });
  writeFileSync(join(p.projectRoot, 'etc', 'passwd'), 'secret');
  for (const bad of ['../../etc/passwd', 'node_../../x', 'node_1234567', 'NODE_12345678', 'node_1234567g', '', 'node_12345678/../../x']) {
    await assert.rejects(inspectLogNode(p, { node_id: bad }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT', bad);
  }
  await assert.rejects(inspectLogNode(p, { node_id: 'node_00000000' }), (e: Error & { code?: string }) => e.code === 'NODE_NOT_FOUND');
  const { id } = await offloaded();
  await assert.rejects(inspectLogNode(p, { node_id: id, grep: '(unclosed' }), /invalid grep/);
  await assert.rejects(inspectLogNode(p, { node_id: id, start_line: 5, end_line: 2 }), /before/);
});

function io(cwd: string, stdinText?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d) => out.push(String(d)));
  stderr.on('data', (d) => err.push(String(d)));
  const stdin = new PassThrough();
  if (stdinText !== undefined) stdin.end(stdinText);
  return { io: { stdout, stderr, stdin, cwd, env: {} as NodeJS.ProcessEnv }, out: () => out.join(''), err: () => err.join('') };
}

test('CLI: `cmd 2>&1 | k0maru offload` then `k0maru inspect`', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-cli-'));
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  const a = io(root, fixture('long-pytest-one-failure.log'));
  assert.equal(await runCli(['offload', '--task', 'pytest'], a.io), 0);
  const id = a.out().match(/Reference ID: (node_[0-9a-f]{8})/)![1];
  assert.deepEqual(readdirSync(join(root, '.k0maru', 'refs')).sort(), ['ledger.jsonl', `pytest_${id}.log`, `pytest_${id}.summary.json`]);
  const b = io(root);
  assert.equal(await runCli(['inspect', id, '--grep', 'FAILED'], b.io), 0);
  assert.match(b.out(), /FAILED tests\/test_rates\.py::test_convert_matches_reference\[613000\]/);
  const c = io(root);
  assert.equal(await runCli(['inspect', '../../etc/passwd'], c.io), 2);
  assert.match(c.err(), /INVALID_ARGUMENT/);
  const d = io(root, 'short\nlog\n');
  assert.equal(await runCli(['offload'], d.io), 0);
  assert.equal(d.out(), 'short\nlog\n');
  const e = io(root);
  assert.equal(await runCli(['offload', '--threshold', 'x'], e.io), 2);
});
