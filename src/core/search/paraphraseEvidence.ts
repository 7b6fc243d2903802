import type { IndexDb } from '../index/db';
import type { ChannelHit } from './bm25';
import { queryTokens, tokenize } from './ftsQuery';
import type { LexicalSearch } from './prf';

/**
 * How well the lexical channel's best hits cover the query: the largest share of the query's content words that
 * one of its top `depth` chunks (title, heading and text) contains. 1 for a symbol BM25 found, low for a
 * paraphrase whose words BM25 matched only here and there — the case where the vector channel should weigh more
 * (fusion.ts, blend `adaptive`). Kept beside the hit list it describes, so the fusion reads it without a change
 * to the channel types.
 */
const coverageOf = new WeakMap<ChannelHit[], number>();

export function lexicalCoverage(hits: ChannelHit[]): number | undefined {
  return coverageOf.get(hits);
}

export function withCoverage(base: LexicalSearch, depth = 3): LexicalSearch {
  return (idx, query, pool) => {
    const hits = base(idx, query, pool);
    coverageOf.set(hits, coverage(idx, query, hits.slice(0, depth)));
    return hits;
  };
}

export function coverage(idx: IndexDb, query: string, top: ChannelHit[]): number {
  const words = [...new Set(queryTokens(query))];
  if (!words.length || !top.length) return 0;
  const ids = top.map((h) => h.chunkId);
  const rows = idx.all(`SELECT c.heading, c.text, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (${ids.map(() => '?').join(',')})`, ids);
  let best = 0;
  for (const r of rows) {
    const toks = new Set(tokenize(`${String(r.title)} ${String(r.heading)} ${String(r.text)}`));
    best = Math.max(best, words.filter((w) => toks.has(w)).length / words.length);
  }
  return best;
}
