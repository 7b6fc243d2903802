// The embedding budget holds by construction, not by luck: batches are sized to the time left and none starts
// once less than one passage fits. Asserted on structure (a driven clock, the report's counters), never on how
// long the machine took; real latencies are in bench/embedBudget.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embedWithinBudget, type PendingStore } from '../../../src/core/embed/budget';
import { EmbedWorker } from '../../../src/core/embed/embedWorker';
import { createVectorChannel } from '../../../src/core/embed/channel';
import { IndexDb } from '../../../src/core/index/db';
import { IncrementalScanner } from '../../../src/core/scan/scanner';
import { K0Error } from '../../../src/core/errors';
import type { Passage } from '../../../src/core/search/vector';
import { ensureBundledModel, ORT_WASM_DIR } from './helpers';

/** A store of `n` pending passages and a clock that moves only when the fake model "computes". */
function rig(n: number, msPerPassage: (batch: string[]) => number, fail?: (text: string) => boolean, refreshCost = 0) {
  let clock = 0;
  const pending = new Map<string, Passage>(Array.from({ length: n }, (_, i) => [`h${i}`, { chunkId: i, docId: i, hash: `h${i}`, text: `passage ${i}` }]));
  const batches: number[] = [];
  const store: PendingStore & { refreshed: number } = {
    refreshed: 0,
    pendingPassages: () => [...pending.values()],
    put: (entries) => entries.forEach((e) => pending.delete(e.hash)),
    refresh() {
      this.refreshed++;
      clock += refreshCost;
    },
  };
  const embed = async (texts: string[]) => {
    batches.push(texts.length);
    clock += msPerPassage(texts) * texts.length;
    if (fail && texts.some(fail)) throw new K0Error('INTERNAL', 'the model failed on this input');
    return { vectors: texts.map(() => new Float32Array(4)) };
  };
  return { store, embed, batches, pending, now: () => clock, advance: (ms: number) => (clock += ms) };
}

test('batches are sized to the time left: none starts after the deadline and the last ones shrink', async () => {
  const r = rig(500, () => 50);
  r.advance(300); // the model load the caller already waited
  const report = await embedWithinBudget(r.store, r.embed, { budgetMs: 1000, since: 0, now: r.now });
  assert.equal(report.batchesAfterDeadline, 0);
  assert.equal(report.overrunMs, 0, 'the estimate never over-promised (first guess 90 ms ≥ real 50 ms)');
  assert.equal(report.stoppedBy, 'budget');
  assert.ok(r.now() <= 1000, `ended at ${r.now()} ms of a 1000 ms budget`);
  assert.ok(report.embedded >= 12, `${report.embedded} embedded: the budget was used, not wasted`);
  assert.ok(r.batches[0] <= 4, 'the first batch, sized on a guess, is small');
  assert.ok(Math.max(...r.batches) > r.batches.at(-1)!, `batches shrink near the deadline: ${r.batches.join(',')}`);
  assert.equal(r.store.refreshed, 1, 'one refresh at the end, not one per batch');
});

test('the refresh after the batches is inside the budget: its measured cost is kept back', async () => {
  const r = rig(500, () => 50, undefined, 300);
  const report = await embedWithinBudget(r.store, r.embed, { budgetMs: 2000, since: 0, now: r.now, reserveMs: 300 });
  assert.equal(report.refreshMs, 300);
  assert.equal(report.overrunMs, 0);
  assert.ok(r.now() <= 2000, `ended at ${r.now()} ms`);
  // A cost measured by an earlier call sizes the first batch at once.
  const warm = rig(500, () => 50);
  const again = await embedWithinBudget(warm.store, warm.embed, { budgetMs: 1000, now: warm.now, initialMsPerPassage: 50 });
  assert.equal(warm.batches[0], 20);
  assert.equal(again.overrunMs, 0);
});

test('calls whose budget never fits one passage still progress: every second one embeds a single passage', async () => {
  const r = rig(10, () => 300);
  const first = await embedWithinBudget(r.store, r.embed, { budgetMs: 200, now: r.now, initialMsPerPassage: 300 });
  assert.deepEqual([first.batches, first.starved], [0, true]);
  const second = await embedWithinBudget(r.store, r.embed, { budgetMs: 200, now: r.now, initialMsPerPassage: 300, starvedBefore: true });
  assert.deepEqual([second.batches, second.embedded, second.batchesAfterDeadline], [1, 1, 0]);
  assert.ok(second.overrunMs <= 300, 'one passage of overrun at most');
});

test('a budget already spent on loading the model starts no batch at all', async () => {
  const r = rig(100, () => 50);
  r.advance(1600);
  const report = await embedWithinBudget(r.store, r.embed, { budgetMs: 1500, since: 0, now: r.now });
  assert.deepEqual([report.batches, report.embedded, report.stoppedBy], [0, 0, 'budget']);
  assert.equal(r.store.refreshed, 0);
});

test('when the machine slows down mid-fill the overrun is bounded by one small batch, not a batch of 32', async () => {
  let calls = 0;
  const r = rig(1000, () => (++calls > 2 ? 400 : 60)); // 60 ms per passage, then 400 ms (a loaded machine)
  const report = await embedWithinBudget(r.store, r.embed, { budgetMs: 3000, since: 0, now: r.now });
  assert.equal(report.batchesAfterDeadline, 0);
  // The batch that met the slowdown was sized with the old estimate; after it, batches are sized with the new one.
  const worst = Math.max(...r.batches.slice(2)) * 400;
  assert.ok(report.overrunMs <= worst, `overrun ${report.overrunMs} ms ≤ ${worst}`);
  assert.ok(r.batches.slice(3).every((b) => b <= 7), `after the slowdown batches fit the time left: ${r.batches.join(',')}`);
});

test('without a budget everything is embedded in full batches; a passage the model rejects is skipped once, not every call', async () => {
  const r = rig(70, () => 10, (t) => t === 'passage 33');
  const skip = new Set<string>();
  const report = await embedWithinBudget(r.store, r.embed, { now: r.now, skip });
  assert.equal(report.embedded, 69);
  assert.equal(report.skipped, 1);
  assert.deepEqual([...skip], ['h33']);
  assert.deepEqual(r.batches.slice(0, 2), [32, 32], 'full batches while time is no object');
  const before = r.batches.length;
  const again = await embedWithinBudget(r.store, r.embed, { now: r.now, skip });
  assert.equal(again.embedded, 0);
  assert.equal(r.batches.length, before, 'the bad passage is not sent again');
});

test('with the real model and worker, a small budget over many unembedded passages starts no batch past its deadline', { timeout: 300_000 }, async () => {
  const dir = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-budget-'));
  const notes = join(tmp, 'notes');
  mkdirSync(notes);
  // Enough passages that no machine embeds them all inside the budget: 4,000 short ones in 400 ms (model start
  // included) would take 10,000 passages/s; one thread embeds ~1,000/s of these here. With 150, a quiet CI machine
  // finished them all in time and the call ended 'done' — a test that depended on the machine's speed.
  for (let i = 0; i < 4000; i++) writeFileSync(join(notes, `n${i}.md`), `# Note ${i}\n\nWe retry webhook ${i} with back-off and jitter, then park it in the dead-letter queue ${i}.\n`);
  const idx = IndexDb.open(join(tmp, 'index.db'));
  const worker = new EmbedWorker({ modelDir: dir, threads: 1, wasmDir: ORT_WASM_DIR });
  try {
    await new IncrementalScanner(idx, notes).scan();
    const since = performance.now();
    const cfg = await worker.start();
    const channel = createVectorChannel({ index: idx, embedder: worker, modelId: cfg.id, dimension: cfg.dimension });
    const total = channel.pending();
    await channel.catchUp(400, { since });
    const report = channel.lastCatchUp!;
    assert.equal(report.batchesAfterDeadline, 0);
    assert.equal(report.stoppedBy, 'budget');
    assert.ok(channel.pending() > 0 && channel.pending() < total + 1, `${channel.pending()} of ${total} still pending`);
    assert.ok(report.msPerPassage > 0);
    // The next call goes on where this one stopped, and a call without a budget finishes the vault.
    await channel.catchUp();
    assert.equal(channel.pending(), 0);
  } finally {
    await worker.dispose();
    idx.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
