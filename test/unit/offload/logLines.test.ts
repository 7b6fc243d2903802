import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getOffload, LineCheckpoints, readLog } from '../../../src/core/console/offloads';
import { inspectLogNode, offloadLog } from '../../../src/core/offload';
import { readLogLines } from '../../../src/core/offload/logLines';

async function all(file: string, from?: { byte: number; line: number }) {
  const out = [];
  for await (const batch of readLogLines(file, from)) out.push(...batch);
  return out;
}

test('log lines are numbered per \\n like the offload engine: a progress bar\'s \\r never starts a line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'k0-lines-'));
  const file = join(dir, 'a.log');
  // A 3-byte character straddles the 64 KiB read boundary; CRLF, lone CR, and no final newline.
  const long = 'x'.repeat(65_535) + '€';
  writeFileSync(file, `a\r\n[==>   ] 10%\r[=====>] 100%\nb\n${long}\nlast`);
  const lines = await all(file);
  assert.deepEqual(lines.map((l) => [l.n, l.text.length > 1000 ? l.text.slice(-2) : l.text]), [
    [1, 'a'],
    [2, '[==>   ] 10%\r[=====>] 100%'],
    [3, 'b'],
    [4, 'x€'],
    [5, 'last'],
  ]);
  // Byte offsets are where each line starts: reading from one gives the same lines.
  const tail = await all(file, { byte: lines[3]!.byte, line: 4 });
  assert.deepEqual(tail.map((l) => l.text.slice(-4)), ['xxx€', 'last']);
  assert.deepEqual(await all(join(dir, 'a.log'), { byte: lines[4]!.byte, line: 5 }).then((x) => x.map((l) => l.n)), [5]);
  writeFileSync(join(dir, 'empty.log'), '');
  assert.deepEqual(await all(join(dir, 'empty.log')), []);
});

test('a cargo log with progress bars: the error ranges, the viewer and inspect all point at the same line', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-cr-'));
  const paths = { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
  const bars = Array.from({ length: 60 }, (_, i) => `    Building [${'='.repeat(i % 20)}>] ${i}/60: crate-${i}\r`).join('');
  const log = ['   Compiling app v0.1.0', bars + '    Finished building deps', ...Array.from({ length: 40 }, (_, i) => `warning: unused import x${i}`), 'error[E0382]: borrow of moved value: `v`', '  --> src/main.rs:12:5', 'error: could not compile `app`'].join('\n');
  const r = await offloadLog(paths, { text: log, taskName: 'cargo', threshold: 10 });
  assert.equal(r.lines, 45);
  const detail = await getOffload(paths, r.nodeId!);
  const errLine = 43;
  assert.ok(detail.ranges.some((x) => x.label.startsWith('E0382') && x.from <= errLine && x.to >= errLine), JSON.stringify(detail.ranges));
  const win = await readLog(paths, r.nodeId!, errLine, errLine);
  assert.equal(win.lines[0], 'error[E0382]: borrow of moved value: `v`');
  assert.equal(win.totalLines, 45);
  const slice = await inspectLogNode(paths, { node_id: r.nodeId!, start_line: errLine, end_line: errLine });
  assert.match(slice.text, /^\s+43\| error\[E0382\]/);
  assert.equal(slice.total_lines, 45);
  // inspect without options gives the raw bytes back, progress bars included.
  assert.equal((await inspectLogNode(paths, { node_id: r.nodeId! })).text, log);
});

test('paging a big log: later windows start from the checkpoints learnt on the way', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-pages-'));
  const paths = { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
  const log = Array.from({ length: 35_000 }, (_, i) => `line ${i + 1} ${'é'.repeat(i % 7)}`).join('\n') + '\n';
  const r = await offloadLog(paths, { text: log, taskName: 'big' });
  const cps = new LineCheckpoints();
  const first = await readLog(paths, r.nodeId!, 34_001, 35_000, cps);
  assert.equal(first.lines[0], `line 34001 ${'é'.repeat(34_000 % 7)}`);
  assert.equal(first.totalLines, 35_000);
  const file = join(paths.refsDir, `big_${r.nodeId}.log`);
  const { statSync } = await import('node:fs');
  const st = statSync(file);
  assert.equal(cps.nearest(file, `${st.size}:${st.mtimeMs}`, 34_500).line, 30_001, 'the read learnt where line 30,001 starts');
  // Starting from a checkpoint gives exactly the same lines as reading from the top.
  assert.deepEqual(await readLog(paths, r.nodeId!, 30_000, 30_002, cps), await readLog(paths, r.nodeId!, 30_000, 30_002));
  const end = await readLog(paths, r.nodeId!, 34_999, 35_000, cps);
  assert.deepEqual(end.lines, [`line 34999 ${'é'.repeat(34_998 % 7)}`, `line 35000 ${'é'.repeat(34_999 % 7)}`]);
});
