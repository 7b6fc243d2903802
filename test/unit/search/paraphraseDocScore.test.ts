// Document-level aggregation of passage cosines (docScore.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateDocs } from '../../../src/core/search/docScore';

const rows = [
  { docId: 1, chunkId: 11, score: 0.7 },
  { docId: 2, chunkId: 21, score: 0.68 },
  { docId: 2, chunkId: 22, score: 0.66 },
  { docId: 1, chunkId: 12, score: 0.3 },
  { docId: 3, chunkId: 31, score: 0.5 },
  { docId: 2, chunkId: 23, score: 0.1 },
];

test('a note matching in two places outranks one matching once; cosine stays the best passage, chunk its chunk', () => {
  const hits = aggregateDocs(rows, 10, { passages: 2, weight: 1 });
  // 2: (0.68 + mean(0.68, 0.66)) / 2 = 0.675 > 1: (0.7 + mean(0.7, 0.3)) / 2 = 0.6 > 3: 0.5
  assert.deepEqual(hits.map((h) => h.docId), [2, 1, 3]);
  const two = hits[0];
  assert.equal(two.cosine, 0.68);
  assert.equal(two.chunkId, 21);
  assert.ok(Math.abs(two.score - (0.68 + (0.68 + 0.66) / 2) / 2) < 1e-12, String(two.score));
  assert.deepEqual(hits.map((h) => h.rank), [1, 2, 3]);
  // A one-passage note scores by that passage alone.
  assert.ok(Math.abs(hits[2].score - 0.5) < 1e-12);
});

test('one passage per note (or weight 0) is the plain best-passage ranking; the pool cuts the list', () => {
  assert.deepEqual(aggregateDocs(rows, 10, { passages: 1, weight: 1 }).map((h) => [h.docId, h.score]), [[1, 0.7], [2, 0.68], [3, 0.5]]);
  assert.deepEqual(aggregateDocs(rows, 2, { passages: 3, weight: 0 }).map((h) => h.docId), [1, 2]);
});
