import type { VectorHit } from './fusion';

/**
 * Document-level aggregation of passage cosines for the vector channel: a note scores by its best passage and,
 * with weight `weight`, by the mean of its best `passages` ones — a note that matches in two places outranks one
 * that matches once by luck. The best passage's cosine stays on the hit (`cosine`) for the floor, the lift and
 * explain. Measured by bench/quality/paraphrase.ts (docs/embeddings.md "Paraphrase channel"); the product's
 * VectorStore.search returns one passage per note, so this runs where per-passage scores are at hand.
 */
export interface DocAggregate {
  passages: number;
  weight: number;
}

export const DOC_AGGREGATE: DocAggregate = { passages: 2, weight: 1 };

export interface PassageScore {
  docId: number;
  chunkId: number;
  score: number;
}

/**
 * `rows` best first (all of them, or a shortlist: a note whose second passage is not in it scores by what is);
 * returns the `pool` best notes by the aggregate, 1-based ranks, ties by doc id.
 */
export function aggregateDocs(rows: Iterable<PassageScore>, pool: number, agg: DocAggregate = DOC_AGGREGATE): VectorHit[] {
  const k = Math.max(1, Math.floor(agg.passages));
  const docs = new Map<number, { chunkId: number; best: number; sum: number; n: number }>();
  for (const r of rows) {
    const d = docs.get(r.docId);
    if (!d) docs.set(r.docId, { chunkId: r.chunkId, best: r.score, sum: r.score, n: 1 });
    else if (d.n < k) {
      d.sum += r.score;
      d.n++;
    }
  }
  return [...docs.entries()]
    .map(([docId, d]) => ({ docId, chunkId: d.chunkId, cosine: d.best, score: (d.best + agg.weight * (d.sum / d.n)) / (1 + agg.weight) }))
    .sort((a, b) => b.score - a.score || a.docId - b.docId)
    .slice(0, pool)
    .map((h, i) => ({ ...h, rank: i + 1 }));
}
