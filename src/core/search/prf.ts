import type { IndexDb } from '../index/db';
import type { ChannelHit } from './bm25';
import { queryTokens, tokenize } from './ftsQuery';
import { coverage } from './paraphraseEvidence';

/** A lexical channel: `pool` documents for a query, best chunk per document, 1-based ranks, higher score = better. */
export type LexicalSearch = (idx: IndexDb, query: string, pool: number) => ChannelHit[];

/**
 * Pseudo-relevance feedback (RM3-style) on a lexical channel: the first pass's top `docs` documents are taken as
 * relevant, their most telling words (term frequency in the matched chunk × the document's normalised score ×
 * idf over all chunks) become a second query, and the two passes are blended on normalised scores, the
 * expansion below the original (`weight` < 0.5). A paraphrase shares few words with its answer, but the notes
 * BM25 does find for it often share many words with that answer.
 *
 * A query the first pass finds nothing for gets nothing: feedback never invents a match (the nonsense queries of
 * bench/quality/offtopic.json stay empty).
 */
export interface PrfOptions {
  /** Feedback documents: the first pass's top N. */
  docs: number;
  /** Expansion terms taken from them. */
  terms: number;
  /** Share of the expansion pass in the blended score, in [0, 1). */
  weight: number;
  /** Skip feedback for queries with fewer content words (a lone symbol is asked for exactly). */
  minQueryTerms?: number;
  /**
   * Skip feedback when one of the first pass's top 3 chunks already holds at least this share of the query's
   * content words (paraphraseEvidence.ts coverage): words that all match need no other words. Default: never skip.
   */
  maxCoverage?: number;
}

export const DEFAULT_PRF: PrfOptions = { docs: 3, terms: 10, weight: 0.3, minQueryTerms: 2 };

/** Words shorter than this, pure numbers and words in more than this share of chunks never expand a query. */
const MIN_TERM_LENGTH = 3;
const MAX_DF_SHARE = 0.1;

export function withPrf(base: LexicalSearch, opts: PrfOptions = DEFAULT_PRF): LexicalSearch {
  return (idx, query, pool) => {
    const first = base(idx, query, pool);
    const own = new Set(queryTokens(query));
    if (!first.length || own.size < (opts.minQueryTerms ?? 1)) return first;
    if (opts.maxCoverage !== undefined && coverage(idx, query, first.slice(0, 3)) >= opts.maxCoverage) return first;
    const terms = expansionTerms(idx, first.slice(0, opts.docs), own, opts.terms);
    if (!terms.length) return first;
    const second = base(idx, terms.join(' '), pool);
    return blendPasses(first, second, opts.weight, pool);
  };
}

/** The feedback documents' best expansion words, best first. */
export function expansionTerms(idx: IndexDb, feedback: ChannelHit[], exclude: Set<string>, count: number): string[] {
  if (!feedback.length || count <= 0) return [];
  const top = Math.max(1e-9, feedback[0].score);
  const ids = feedback.map((h) => h.chunkId);
  const rows = idx.all(
    `SELECT c.id, c.heading, c.text, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (${ids.map(() => '?').join(',')})`,
    ids,
  );
  const byChunk = new Map(rows.map((r) => [Number(r.id), `${String(r.title)} ${String(r.heading)} ${String(r.text)}`]));
  // Relevance model: Σ_docs P(w | d) · weight(d), the weight being the document's share of the best score.
  const weight = new Map<string, number>();
  for (const h of feedback) {
    const toks = tokenize(byChunk.get(h.chunkId) ?? '').filter((t) => t.length >= MIN_TERM_LENGTH && !/^\d+$/.test(t) && !exclude.has(t) && !STOP.has(t));
    if (!toks.length) continue;
    const w = h.score / top / toks.length;
    for (const t of toks) weight.set(t, (weight.get(t) ?? 0) + w);
  }
  // idf only for the best few candidates: one cheap FTS count each.
  const shortlist = [...weight.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count * 3);
  const total = Math.max(1, Number(idx.get('SELECT COUNT(*) AS n FROM chunks')?.n ?? 1));
  const scored: [string, number][] = [];
  for (const [t, w] of shortlist) {
    const df = Number(idx.get('SELECT COUNT(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', [`"${t}"`])?.n ?? 0);
    // A small vault has few chunks: there the cap is two chunks, not a tenth of almost nothing.
    if (!df || df > Math.max(2, MAX_DF_SHARE * total)) continue;
    scored.push([t, w * Math.log(1 + total / df)]);
  }
  return scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count).map(([t]) => t);
}

/** (1 − w) · first/max(first) + w · second/max(second), per document; the first pass's chunk when it has one. */
export function blendPasses(first: ChannelHit[], second: ChannelHit[], w: number, pool: number): ChannelHit[] {
  const max = (hs: ChannelHit[]) => Math.max(1e-9, ...hs.map((h) => h.score));
  const m1 = max(first);
  const m2 = max(second);
  const out = new Map<number, { docId: number; chunkId: number; score: number }>();
  for (const h of first) out.set(h.docId, { docId: h.docId, chunkId: h.chunkId, score: ((1 - w) * h.score) / m1 });
  for (const h of second) {
    const c = out.get(h.docId);
    if (c) c.score += (w * h.score) / m2;
    else out.set(h.docId, { docId: h.docId, chunkId: h.chunkId, score: (w * h.score) / m2 });
  }
  return [...out.values()]
    .sort((a, b) => b.score - a.score || a.docId - b.docId)
    .slice(0, pool)
    .map((h, i) => ({ ...h, rank: i + 1 }));
}

/** Words too general to say what a note is about (on top of the query stopwords, which never reach here). */
const STOP = new Set(
  'also been being both each more most other some such than through under very just only same into over should could would will shall must make made using used use uses want need needs like which while where there their these those this that with from have has had what when were they them then than your ours our were does done dont want able'.split(' '),
);
