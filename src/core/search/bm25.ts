import type { IndexDb, Row } from '../index/db';
import { ftsPhrases } from './ftsQuery';
import { bm25Call } from './bm25Weights';

export interface ChannelHit {
  docId: number;
  chunkId: number;
  /** 1-based rank within the channel. */
  rank: number;
  /** Channel-native score: positive BM25 (higher is better) or cosine. */
  score: number;
}

/**
 * `exact` (the product) scores every match and joins `chunks` only for the rows that survive the LIMIT; `legacy` is
 * the statement before #17 (the join ran for every match, before the sort), kept only so the bench can compare the
 * two in one run. Both give the same rows in the same order.
 */
export type Bm25Strategy = 'exact' | 'legacy';

export interface Bm25Options {
  strategy?: Bm25Strategy;
}

/** Title and headings outweigh body text: a note titled "Redis locks" is about Redis locks. */
export const BM25_WEIGHTS = { title: 8, heading: 3, body: 1 };
/**
 * Lexical channel: FTS5 bm25 over chunks, best chunk per document, `pool` documents deep.
 */
export function searchBm25(idx: IndexDb, query: string, pool: number, opts: Bm25Options = {}): ChannelHit[] {
  const phrases = ftsPhrases(query);
  if (!phrases.length) return [];
  const match = phrases.join(' OR ');
  const want = Math.max(pool * 8, 200);
  const bm25 = bm25Call(idx, BM25_WEIGHTS);
  const rows = opts.strategy === 'legacy' ? legacyRows(idx, bm25, match, want) : scoreAll(idx, bm25, match, want);
  return bestChunkPerDoc(rows, pool);
}

/** Every match scored; the join to `chunks` comes after the LIMIT (before it, it cost one lookup per match). */
function scoreAll(idx: IndexDb, BM25: string, match: string, want: number): Row[] {
  return idx.all(
    `SELECT c.doc_id AS doc_id, f.id AS chunk_id, -f.s AS score
       FROM (SELECT rowid AS id, ${BM25} AS s FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?) f
       JOIN chunks c ON c.id = f.id
      ORDER BY f.s, f.id`,
    [match, want],
  );
}

/** The statement before #17: joins `chunks` for every match, then sorts. Bench comparison only. */
function legacyRows(idx: IndexDb, BM25: string, match: string, want: number): Row[] {
  return idx.all(
    `SELECT c.doc_id AS doc_id, c.id AS chunk_id, -${BM25} AS score
       FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
      WHERE chunks_fts MATCH ?
      ORDER BY ${BM25}
      LIMIT ?`,
    [match, want],
  );
}

function bestChunkPerDoc(rows: Row[], pool: number): ChannelHit[] {
  const best = new Map<number, ChannelHit>();
  for (const r of rows) {
    const docId = Number(r.doc_id);
    if (best.has(docId)) continue;
    best.set(docId, { docId, chunkId: Number(r.chunk_id), rank: best.size + 1, score: Number(r.score) });
    if (best.size >= pool) break;
  }
  return [...best.values()];
}
