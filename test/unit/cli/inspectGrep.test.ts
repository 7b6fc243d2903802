import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectLogNode, offloadLog } from '../../../src/core/offload';
import { MAX_INSPECT_LINE_CHARS } from '../../../src/core/offload/inspect';

// `inspect --grep` used to test only the first 10,000 characters of each line: a match further along a long
// line (a minified bundle, a JSON blob in a log) was silently missed.
test('inspect --grep tests the whole line, not only its first MAX_INSPECT_LINE_CHARS characters', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-inspect-long-'));
  const p = { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
  const lines = Array.from({ length: 60 }, (_, i) => `step ${i} ok`);
  lines[30] = `${'x'.repeat(MAX_INSPECT_LINE_CHARS * 3)} NEEDLE_AT_THE_END`;
  const r = await offloadLog(p, { text: lines.join('\n') + '\n', threshold: 30 });
  assert.ok(r.nodeId, 'the log was offloaded');
  const g = await inspectLogNode(p, { node_id: r.nodeId!, grep: 'NEEDLE_AT_THE_END$' });
  assert.equal(g.lines_returned, 1, 'the match past the first 10,000 characters is found');
  assert.match(g.text, /^\s+31\| x+… \[\+\d+ chars\]$/, 'the returned line is still capped for display');
  // A pattern that backtracks in a backtracking engine stays fast on a long line (RE2: linear time).
  const t0 = performance.now();
  const slow = await inspectLogNode(p, { node_id: r.nodeId!, grep: '(x+x+)+y' });
  assert.equal(slow.lines_returned, 0);
  assert.ok(performance.now() - t0 < 5000, `a catastrophic pattern took ${(performance.now() - t0).toFixed(0)} ms`);
});
