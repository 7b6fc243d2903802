import type { IndexDb } from '../index/db';
import { buildFtsQuery } from './ftsQuery';

export interface ChannelHit {
  docId: number;
  chunkId: number;
  /** 1-based rank within the channel. */
  rank: number;
  /** Channel-native score: positive BM25 (higher is better) or cosine. */
  score: number;
}

/** Title and headings outweigh body text: a note titled "Redis locks" is about Redis locks. */
const WEIGHTS = { title: 8, heading: 3, body: 1 };

/**
 * Lexical channel: FTS5 bm25 over chunks, best chunk per document, `pool` documents deep.
 */
export function searchBm25(idx: IndexDb, query: string, pool: number): ChannelHit[] {
  const match = buildFtsQuery(query);
  if (!match) return [];
  const rows = idx.all(
    `SELECT c.doc_id AS doc_id, c.id AS chunk_id, -bm25(chunks_fts, ${WEIGHTS.title}, ${WEIGHTS.heading}, ${WEIGHTS.body}) AS score
       FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
      WHERE chunks_fts MATCH ?
      ORDER BY bm25(chunks_fts, ${WEIGHTS.title}, ${WEIGHTS.heading}, ${WEIGHTS.body})
      LIMIT ?`,
    [match, Math.max(pool * 8, 200)],
  );
  const best = new Map<number, ChannelHit>();
  for (const r of rows) {
    const docId = Number(r.doc_id);
    if (best.has(docId)) continue;
    best.set(docId, { docId, chunkId: Number(r.chunk_id), rank: best.size + 1, score: Number(r.score) });
    if (best.size >= pool) break;
  }
  return [...best.values()];
}
