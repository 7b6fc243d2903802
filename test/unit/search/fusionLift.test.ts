// The lift of the vector channel's sure best note (fusion.ts `lift`, part of DEFAULT_FUSION) and document-level
// vector hits that carry their best passage's cosine apart from their aggregated score.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FUSION, DEFAULT_LIFT, fuse, parseFusion, type VectorHit } from '../../../src/core/search/fusion';
import type { ChannelHit } from '../../../src/core/search/bm25';

const bm = (scores: number[]): ChannelHit[] => scores.map((score, i) => ({ docId: i + 1, chunkId: 100 + i + 1, rank: i + 1, score }));
// Five BM25 notes 1..5 with a steep score curve; note 9 only the vectors found, as their best.
const lexical = bm([10, 9, 8, 7, 6]);
const vector = (cos: number): VectorHit[] => [
  { docId: 9, chunkId: 900, rank: 1, score: cos },
  { docId: 2, chunkId: 102, rank: 2, score: cos - 0.1 },
  { docId: 7, chunkId: 700, rank: 3, score: cos - 0.3 },
];

test('without a lift, a blend at 0.8 keeps a note only the vectors found below BM25’s top 5', () => {
  const ids = fuse(lexical, vector(0.7), { method: 'blend', bm25Weight: 0.8 }).map((r) => r.docId);
  assert.ok(ids.indexOf(9) >= 5, ids.join(','));
});

test('a sure vector best note (cosine ≥ the bar) is lifted to the lift rank; BM25’s first answers keep their places', () => {
  const ranked = fuse(lexical, vector(0.7), { method: 'blend', bm25Weight: 0.8, lift: { cosine: 0.65, rank: 3 } });
  const ids = ranked.map((r) => r.docId);
  assert.equal(ids[2], 9, ids.join(','));
  assert.deepEqual(ids.slice(0, 2), [2, 1], 'the top two are the unlifted blend’s');
  assert.equal(ranked[2].explain.lifted, 3);
  assert.ok(ranked[2].score > ranked[3].score && ranked[2].score < ranked[1].score, 'scores stay ordered, so later demotions act on them');
});

test('below the bar, or already high enough, the lift changes nothing', () => {
  const plain = { method: 'blend', bm25Weight: 0.8 } as const;
  const withLift = { ...plain, lift: { cosine: 0.65, rank: 3 } };
  assert.deepEqual(fuse(lexical, vector(0.64), withLift), fuse(lexical, vector(0.64), plain));
  // Note 1 is the vectors' best and BM25's best: already at rank 1.
  const sameBest: VectorHit[] = [{ docId: 1, chunkId: 101, rank: 1, score: 0.9 }];
  assert.deepEqual(fuse(lexical, sameBest, withLift), fuse(lexical, sameBest, plain));
});

test('aggregated vector hits: the lift and explain read the best passage’s cosine, not the aggregate', () => {
  // Aggregate 0.6 (under the bar) but best passage 0.7 (over it): lifted, and explain shows 0.7.
  const agg: VectorHit[] = [{ docId: 9, chunkId: 900, rank: 1, score: 0.6, cosine: 0.7 }, { docId: 3, chunkId: 103, rank: 2, score: 0.4, cosine: 0.45 }];
  const ranked = fuse(lexical, agg, { method: 'blend', bm25Weight: 0.8, lift: { cosine: 0.65, rank: 2 } });
  assert.equal(ranked[1].docId, 9);
  assert.deepEqual(ranked[1].explain.vector, { rank: 1, cosine: 0.7 });
  // The other way round: aggregate over the bar, best passage under it → no lift.
  const low: VectorHit[] = [{ docId: 9, chunkId: 900, rank: 1, score: 0.8, cosine: 0.6 }];
  assert.notEqual(fuse(lexical, low, { method: 'blend', bm25Weight: 0.8, lift: { cosine: 0.65, rank: 2 } })[1].docId, 9);
});

test('the default fusion is blend 0.8 with the lift; `blend` is the previous default and `blend+lift` names the new one', () => {
  assert.deepEqual(DEFAULT_FUSION, { method: 'blend', bm25Weight: 0.8, boost: 0, lift: DEFAULT_LIFT });
  assert.equal(parseFusion('blend').lift, undefined);
  assert.deepEqual(parseFusion('blend+lift').lift, DEFAULT_LIFT);
  assert.throws(() => parseFusion('lift'), /blend\+lift/);
});
