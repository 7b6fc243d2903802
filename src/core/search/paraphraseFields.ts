import type { ChannelHit } from './bm25';
import { ftsPhrases } from './ftsQuery';
import { bm25Call } from './bm25Weights';
import type { LexicalSearch } from './prf';

/**
 * Lexical-channel variants measured against searchBm25 by bench/quality/paraphrase.ts: other title / heading / body
 * weights, and a document score aggregated over its best chunks (best + decay × second + decay² × third …) instead
 * of its single best chunk — a long note whose answer is spread over sections gains over a note that repeats a
 * word once. Same statement shape as bm25.ts (score every match, join after the LIMIT).
 */
export interface FieldOptions {
  weights: { title: number; heading: number; body: number };
  /** Chunks per document that count (1 = best chunk only, like searchBm25). */
  topChunks: number;
  /** Weight of the i-th best chunk = decay^(i−1). */
  decay: number;
}

export function fieldedBm25(opts: FieldOptions): LexicalSearch {
  const { title, heading, body } = opts.weights;
  return (idx, query, pool) => {
    const phrases = ftsPhrases(query);
    if (!phrases.length) return [];
    const bm25 = bm25Call(idx, { title: Number(title), heading: Number(heading), body: Number(body) });
    const rows = idx.all(
      `SELECT c.doc_id AS doc_id, f.id AS chunk_id, -f.s AS score
         FROM (SELECT rowid AS id, ${bm25} AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?) f
         JOIN chunks c ON c.id = f.id
        ORDER BY f.s, f.id`,
      [phrases.join(' OR '), Math.max(pool * 8, 200)],
    );
    const docs = new Map<number, { chunkId: number; score: number; seen: number }>();
    for (const r of rows) {
      const docId = Number(r.doc_id);
      const d = docs.get(docId);
      if (!d) docs.set(docId, { chunkId: Number(r.chunk_id), score: Number(r.score), seen: 1 });
      else if (d.seen < opts.topChunks) d.score += Number(r.score) * opts.decay ** d.seen++;
    }
    return [...docs.entries()]
      .sort((a, b) => b[1].score - a[1].score || a[0] - b[0])
      .slice(0, pool)
      .map(([docId, d], i): ChannelHit => ({ docId, chunkId: d.chunkId, rank: i + 1, score: d.score }));
  };
}
