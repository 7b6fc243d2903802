import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectLogNode, LEDGER_FILE, offloadLog } from '../../../src/core/offload';

const STORE = join(__dirname, '..', '..', '..', 'src', 'core', 'offload', 'store.ts');

function writer(refsDir: string, id: number, n: number): Promise<void> {
  // Each process appends n entries with a long task name so a torn write would show as broken JSON.
  const code = `
    const { appendLedger } = require(${JSON.stringify(STORE)});
    for (let i = 0; i < ${n}; i++) appendLedger(${JSON.stringify(refsDir)}, { ts: new Date().toISOString(), node_id: 'node_0000000${id}', task: 'w${id}-' + 'x'.repeat(900) + '-' + i, lines: i, bytes: i, tokens_before: i, tokens_after: 1, reduction: 0.5, source: 'cli', deduplicated: false });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (c) => (c === 0 ? resolve() : reject(new Error(err))));
  });
}

test('the ledger stays one valid JSON object per line under concurrent writers', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-ledger-'));
  const refsDir = join(root, '.k0maru', 'refs');
  await Promise.all([1, 2, 3, 4].map((id) => writer(refsDir, id, 150)));
  const lines = readFileSync(join(refsDir, LEDGER_FILE), 'utf8').split('\n').filter(Boolean);
  assert.equal(lines.length, 600);
  const entries = lines.map((l) => JSON.parse(l));
  for (const id of [1, 2, 3, 4]) assert.equal(entries.filter((e) => e.node_id === `node_0000000${id}`).length, 150);
});

test('inspect returns 1 MB lines cut at 10,000 characters with a marker', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-inspect-long-'));
  const p = { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
  const big = 'y'.repeat(1 << 20);
  const r = await offloadLog(p, { text: `${big}\n` + 'tail\n'.repeat(60), threshold: 30 });
  const slice = await inspectLogNode(p, { node_id: r.nodeId!, start_line: 1, end_line: 2 });
  const [first, second] = slice.text.split('\n');
  assert.ok(first.length < 10_100);
  assert.match(first, /… \[\+1038576 chars\]$/);
  assert.match(second, /^\s+2\| tail$/);
});
