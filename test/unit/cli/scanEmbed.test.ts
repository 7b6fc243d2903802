import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { runCliCaptured } from '../../helpers/cli';
import { tempVault } from '../../helpers/tempVault';
import { ensureBundledModel } from '../embed/helpers';
import { join } from 'node:path';
import { etaProgress } from '../../../src/cli/progress';
import { IndexDb } from '../../../src/core/index/db';
import { VectorStore } from '../../../src/core/search/vector';

/** Issue 14 item 2: `k0maru scan --embed [--json]` brings the index and every vector up to date, with progress. */

const WORDS = 'cache queue broker replica shard lease token ledger invoice webhook cron backup restore schema'.split(' ');
const notes = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${i}.md`, `# Note ${i}\n\n${Array.from({ length: 70 }, (_, j) => WORDS[(i * 5 + j) % WORDS.length]).join(' ')}\n`]));

test('scan --embed --json embeds every passage, an edit re-embeds only its passage, and every vector is stored', { timeout: 300_000 }, async () => {
  const v = tempVault(notes(12));
  const env = { K0MARU_MODEL: ensureBundledModel() };
  try {
    const first = await runCliCaptured(['scan', '--embed', '--json', '--vault', v.root], { cwd: v.root, env });
    assert.equal(first.code, 0, first.err);
    const r = JSON.parse(first.out) as { added: number; vectors: { model: string; passages: number; embedded: number; embeddedNow: number } };
    assert.equal(r.added, 12);
    assert.equal(r.vectors.model, 'use-lite-en-v1-int8');
    assert.ok(r.vectors.passages >= 12 && r.vectors.embedded === r.vectors.passages, JSON.stringify(r.vectors));
    assert.ok(r.vectors.embeddedNow > 0);
    // Not a TTY here: plain lines, the last one the total.
    assert.match(first.err, /embedding: (\d+) \/ \1 passages/);

    v.write('n0.md', '# Note 0\n\nBlue-green deployments switch all traffic at once.\n');
    const second = await runCliCaptured(['scan', '--embed', '--vault', v.root], { cwd: v.root, env });
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /Indexed 12 note\(s\).*1 modified/);
    assert.match(second.out, /Vectors \(use-lite-en-v1-int8\): (\d+) \/ \1 passages; 1 embedded now/);

    // What recall will read: every passage of the index has its vector for this model.
    const idx = IndexDb.open(join(v.root, '.k0maru', 'index.db'));
    try {
      const store = new VectorStore(idx, 'use-lite-en-v1-int8', 512);
      assert.equal(store.pending(), 0);
      assert.equal(store.size.embedded, store.size.passages);
    } finally {
      idx.close();
    }
  } finally {
    v.cleanup();
  }
});

test('scan --embed with a missing model updates the index and fails with MODEL_UNAVAILABLE', async () => {
  const v = tempVault(notes(2));
  try {
    const r = await runCliCaptured(['scan', '--embed', '--vault', v.root], { cwd: v.root, env: { K0MARU_MODEL: v.root + '/no-such-model' } });
    assert.equal(r.code, 4, r.err);
    assert.match(r.err, /MODEL_UNAVAILABLE/);
    assert.match(r.out, /Indexed 2 note\(s\)/);
  } finally {
    v.cleanup();
  }
});

test('progress: a bar with an ETA on a terminal, at most one line per second otherwise', () => {
  let clock = 0;
  let out = '';
  const sink = new PassThrough().on('data', (d) => (out += String(d)));
  const plain = etaProgress(sink, 'embedding', 'passages', { now: () => clock, tty: false });
  plain.update(0, 100);
  for (clock = 100; clock <= 2000; clock += 100) plain.update(clock / 40, 100);
  plain.update(100, 100);
  plain.end();
  const lines = out.trim().split('\n');
  assert.equal(lines.length, 4, out); // t=0, t=1000, t=2000, and the final total
  assert.match(lines[1], /^embedding: 25 \/ 100 passages \(25\.0\/s, ETA 3 s\)$/);
  assert.match(lines[3], /^embedding: 100 \/ 100 passages/);
  out = '';
  clock = 0;
  const bar = etaProgress(sink, 'embedding', 'passages', { now: () => clock, tty: true });
  clock = 1000;
  bar.update(50, 100);
  assert.match(out, /^\r\x1b\[Kembedding \[#{15} {15}\] 50 \/ 100 passages \(50\.0\/s, ETA 1 s\)$/);
});

test('a one-shot hybrid recall on a vault with no vectors answers BM25 at once and says how to fill them', async () => {
  const v = tempVault(notes(3));
  try {
    const r = await runCliCaptured(['recall', 'shard replica', '--mode', 'hybrid', '--json', '--vault', v.root], { cwd: v.root, env: { K0MARU_MODEL: ensureBundledModel() } });
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as { effectiveMode: string; warnings: string[]; hits: unknown[] };
    assert.equal(j.effectiveMode, 'bm25');
    assert.match(j.warnings[0], /no passage has a vector of use-lite-en-v1-int8 yet \(k0maru scan --embed fills them\): answered with BM25 only/);
    assert.ok(j.hits.length > 0);
  } finally {
    v.cleanup();
  }
});
