import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuse, SEED_RRF, type GraphView } from '../../../src/core/search/fusion';
import type { ChannelHit } from '../../../src/core/search/bm25';

const hits = (docs: [number, number][]): ChannelHit[] => docs.map(([docId, score], i) => ({ docId, chunkId: docId * 10, rank: i + 1, score }));
const noGraph: GraphView = { neighbours: () => new Map(), superseded: () => new Set() };

test("the seed's RRF exactly: Σ 0.5/(60 + rank), 1-based, 0 outside a channel's pool", () => {
  const lexical = hits([[1, 9], [2, 5]]);
  const vector = hits([[2, 0.6], [3, 0.5]]);
  const ranked = fuse(lexical, vector, SEED_RRF, noGraph);
  assert.deepEqual(ranked.map((r) => r.docId), [2, 1, 3]);
  const byDoc = new Map(ranked.map((r) => [r.docId, r]));
  assert.equal(byDoc.get(1)!.explain.fused, 0.5 / 61);
  assert.equal(byDoc.get(2)!.explain.fused, 0.5 / 62 + 0.5 / 61);
  assert.equal(byDoc.get(3)!.explain.fused, 0.5 / 62);
  // Ranking uses the normalised scale: fused ÷ best possible (1/61).
  assert.ok(Math.abs(byDoc.get(2)!.score - (0.5 / 62 + 0.5 / 61) * 61) < 1e-12);
  assert.deepEqual(byDoc.get(2)!.explain.bm25, { rank: 2, score: 5 });
  assert.deepEqual(byDoc.get(2)!.explain.vector, { rank: 1, cosine: 0.6 });
  assert.equal(byDoc.get(3)!.chunkId, 30);
});

test('graph boost is a share of the best possible score, only between candidates, never through superseded notes', () => {
  const lexical = hits([[1, 9], [2, 8], [3, 7], [4, 6]]);
  const graph: GraphView = {
    // 3 ↔ 4 are linked; 2 links only to superseded 5 (in the pool) and to 99 (not a candidate).
    neighbours: () => new Map([[3, new Set([4])], [4, new Set([3])], [2, new Set([5, 99])], [5, new Set([2])]]),
    superseded: () => new Set([5]),
  };
  const ranked = fuse(lexical, hits([[5, 0.9]]), { ...SEED_RRF, boost: 0.05 }, graph);
  const byDoc = new Map(ranked.map((r) => [r.docId, r]));
  assert.equal(byDoc.get(3)!.explain.boost, 0.05);
  assert.equal(byDoc.get(4)!.explain.boost, 0.05);
  assert.equal(byDoc.get(2)!.explain.boost, undefined, 'a link through a superseded note does not boost');
  assert.equal(byDoc.get(5)!.explain.boost, undefined, 'a superseded note is never boosted');
  assert.ok(Math.abs(byDoc.get(3)!.score - ((0.5 / 63) * 61 + 0.05)) < 1e-12);
  // A single-channel hit scores at most 0.5 on the normalised scale, so +0.05 still lifts linked rank-3/4 hits
  // above an unlinked rank 1 — why the bench decides whether a boost stays.
  assert.deepEqual(ranked.slice(0, 3).map((r) => r.docId), [3, 4, 1]);
});

test('rescue keeps BM25 order and adds strong vector-only documents below its first hits', () => {
  const lexical = hits([[1, 9], [2, 8], [3, 7], [4, 6]]);
  const vector = hits([[7, 0.5], [2, 0.45], [8, 0.2]]);
  const ranked = fuse(lexical, vector, { method: 'rescue', rescueCosine: 0.35, rescueAfter: 3 }, noGraph);
  assert.deepEqual(ranked.map((r) => r.docId), [1, 2, 3, 7, 4], 'doc 8 is under the bar and stays out');
  assert.equal(ranked[3].explain.bm25, undefined);
  assert.equal(ranked[3].explain.vector?.cosine, 0.5);
  // Without vectors the order is BM25's.
  assert.deepEqual(fuse(lexical, [], { method: 'rescue' }, noGraph).map((r) => r.docId), [1, 2, 3, 4]);
});

test('blend keeps an exact BM25 #1 that the vector channel missed; rank fusion cannot', () => {
  const lexical = hits([[1, 20], [2, 3], [3, 2.5]]);
  const vector = hits([[2, 0.4], [3, 0.38], [9, 0.37]]);
  assert.equal(fuse(lexical, vector, SEED_RRF, noGraph)[0].docId, 2, 'the seed formula demotes it (the measured problem)');
  // Ranks flatten scores: 0.8/61 − 0.8/62 is smaller than any vector contribution, whatever the weights.
  assert.equal(fuse(lexical, vector, { method: 'wrrf', bm25Weight: 0.8 }, noGraph)[0].docId, 2);
  assert.equal(fuse(lexical, vector, { method: 'blend', bm25Weight: 0.7 }, noGraph)[0].docId, 1);
});
