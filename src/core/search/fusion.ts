import { K0Error } from '../errors';
import type { ChannelHit } from './bm25';
import { lexicalCoverage } from './paraphraseEvidence';
import type { RankedDoc } from './types';

/**
 * How the lexical and vector channels are combined in hybrid recall. Every method is explainable: each
 * candidate carries its BM25 rank/score, vector rank/cosine, fused score and boost.
 *
 *  rrf      the seed's formula, exactly: Σ w_m / (k + rank_m), k = 60, w = 0.5 / 0.5, 1-based ranks, 0 outside
 *           a channel's pool (pool = max(limit × 3, 20)).
 *  wrrf     the same with other weights (e.g. 0.8 / 0.2) so BM25's exact hits keep their place.
 *  blend    normalised score fusion: α · bm25/max(bm25) + (1 − α) · cosine min-max rescaled over the vector pool.
 *  rescue   BM25's order, then vector hits BM25 did not find at all, when their cosine clears a bar.
 *
 * A graph boost may be added on a normalised scale: the fused score is divided by its best possible value
 * (so it lies in [0, 1]) and `boost` (e.g. 0.05 = 5 % of the best possible score) is added to candidates
 * linked one hop to another candidate, never through a superseded note.
 */
export type FusionMethod = 'rrf' | 'wrrf' | 'blend' | 'rescue';
export const FUSION_METHODS: readonly FusionMethod[] = ['rrf', 'wrrf', 'blend', 'rescue'];

export interface FusionOptions {
  method: FusionMethod;
  /** RRF constant (rrf, wrrf). */
  k?: number;
  /** Weight of the BM25 channel; the vector channel gets 1 − this (rrf: 0.5; wrrf, blend: see defaults). */
  bm25Weight?: number;
  /** rescue: minimum cosine for a vector-only document, and how many BM25 hits stay ahead of rescued ones. */
  rescueCosine?: number;
  rescueAfter?: number;
  /**
   * blend: the BM25 weight follows how much of the query the lexical channel's best chunk covers
   * (paraphraseEvidence.ts): `bm25Weight` when it covers every content word, down to `min` when it covers none.
   * Without a coverage figure (a lexical channel not wrapped by withCoverage) the weight stays `bm25Weight`.
   */
  adaptive?: { min: number };
  /**
   * The vector channel's say when it is sure: its best document, when its cosine reaches `cosine`, is placed at
   * rank `rank` (1-based) if the fused order had it lower — BM25's first `rank − 1` answers keep their places.
   * A blend at 0.8 caps a document only the vectors found at 0.2 of the best score, under BM25's fifth hit on most
   * queries, so a clear paraphrase match never reached the top 5 (bench/quality/paraphrase.ts, docs/embeddings.md).
   */
  lift?: { cosine: number; rank: number };
  /** Normalised graph boost, 0 = off. */
  boost?: number;
}

/** Links between candidates, for the graph boost: doc → linked docs (either direction), superseded docs. */
export interface GraphView {
  neighbours(docIds: number[]): Map<number, Set<number>>;
  superseded(docIds: number[]): Set<number>;
}

export const SEED_RRF: FusionOptions = { method: 'rrf', k: 60, bm25Weight: 0.5, boost: 0 };

/**
 * The hybrid default, chosen by measurement on bench/quality (docs/embeddings.md): normalised score blend with
 * BM25 at 0.8 (56 queries: the only fusion ≥ BM25 on every query type; RRF lost on "what did we decide", the graph
 * boost changed nothing), plus the lift of the vector channel's best document to rank 3 when its cosine is ≥ 0.65
 * (128 queries, chosen on the tune half: ≥ BM25 on every type there and on the test half, paraphrase R@5 +0.05 /
 * +0.04 over BM25 — not the +0.10 the issue asks for).
 */
export const DEFAULT_LIFT = { cosine: 0.65, rank: 3 } as const;
export const DEFAULT_FUSION: FusionOptions = { method: 'blend', bm25Weight: 0.8, boost: 0, lift: DEFAULT_LIFT };

/** Fusion presets by name, for `--fusion` and settings: default | rrf | rrf+boost | wrrf | blend | blend+lift | rescue. */
export function parseFusion(name: string | undefined): FusionOptions {
  switch (name ?? 'default') {
    case 'default':
      return DEFAULT_FUSION;
    case 'rrf':
      return SEED_RRF;
    case 'rrf+boost':
      return { ...SEED_RRF, boost: 0.05 };
    case 'wrrf':
      return { method: 'wrrf', k: 60, bm25Weight: 0.8 };
    case 'blend':
      return { method: 'blend', bm25Weight: 0.8 };
    case 'blend+lift':
      return { method: 'blend', bm25Weight: 0.8, lift: DEFAULT_LIFT };
    case 'rescue':
      return { method: 'rescue', rescueCosine: 0.35, rescueAfter: 3 };
    default:
      throw new K0Error('INVALID_ARGUMENT', `unknown fusion '${name}': default, rrf, rrf+boost, wrrf, blend, blend+lift or rescue`);
  }
}

/**
 * A vector hit whose `score` is a document-level aggregate (docScore.ts) carries its best passage's cosine apart:
 * the aggregate is what is blended, the cosine is what the floor, the lift and `explain` read.
 */
export type VectorHit = ChannelHit & { cosine?: number };

const cosineOf = (h: VectorHit): number => h.cosine ?? h.score;

interface Cand {
  docId: number;
  chunkId: number;
  bm?: ChannelHit;
  vec?: VectorHit;
}

function merge(lexical: ChannelHit[], vector: ChannelHit[]): Map<number, Cand> {
  const out = new Map<number, Cand>();
  for (const h of lexical) out.set(h.docId, { docId: h.docId, chunkId: h.chunkId, bm: h });
  for (const h of vector) {
    const c = out.get(h.docId);
    if (c) c.vec = h;
    else out.set(h.docId, { docId: h.docId, chunkId: h.chunkId, vec: h });
  }
  return out;
}

/** Returns [score, best possible score] for one candidate. */
function scorer(opts: FusionOptions, lexical: ChannelHit[], vector: ChannelHit[]): (c: Cand) => [number, number] {
  const wb = opts.bm25Weight ?? (opts.method === 'rrf' ? 0.5 : opts.method === 'wrrf' ? 0.8 : 0.7);
  const wv = 1 - wb;
  if (opts.method === 'rrf' || opts.method === 'wrrf') {
    const k = opts.k ?? 60;
    const max = wb / (k + 1) + wv / (k + 1);
    return (c) => [(c.bm ? wb / (k + c.bm.rank) : 0) + (c.vec ? wv / (k + c.vec.rank) : 0), max];
  }
  if (opts.method === 'blend') {
    const cover = opts.adaptive ? lexicalCoverage(lexical) : undefined;
    if (cover !== undefined) return blendScorer(opts.adaptive!.min + (wb - opts.adaptive!.min) * cover, lexical, vector);
    return blendScorer(wb, lexical, vector);
  }
  // rescue: BM25 order first (scores in (1, 2]), then rescued vector-only documents by cosine (scores in (0, 1]).
  const bmMax = Math.max(1e-9, ...lexical.map((h) => h.score));
  const bar = opts.rescueCosine ?? 0.35;
  return (c) => {
    if (c.bm) return [1 + c.bm.score / bmMax, 2];
    if (c.vec && c.vec.score >= bar) return [c.vec.score, 2];
    return [0, 2];
  };
}

function blendScorer(wb: number, lexical: ChannelHit[], vector: ChannelHit[]): (c: Cand) => [number, number] {
  const wv = 1 - wb;
  const bmMax = Math.max(1e-9, ...lexical.map((h) => h.score));
  const cos = vector.map((h) => h.score);
  const cosMax = cos.length ? Math.max(...cos) : 1;
  const cosMin = cos.length ? Math.min(...cos) : 0;
  const span = Math.max(1e-6, cosMax - cosMin);
  return (c) => [wb * (c.bm ? c.bm.score / bmMax : 0) + wv * (c.vec ? (c.vec.score - cosMin) / span : 0), 1];
}

export function fuse(lexical: ChannelHit[], vector: ChannelHit[], opts: FusionOptions, graph?: GraphView): RankedDoc[] {
  const cands = merge(lexical, vector);
  const score = scorer(opts, lexical, vector);
  let ranked: RankedDoc[] = [...cands.values()].map((c) => {
    const [s, max] = score(c);
    return {
      docId: c.docId,
      // The passage that matched best: BM25's chunk when it found the document, else the vector channel's.
      chunkId: c.bm?.chunkId ?? c.chunkId,
      // Ranked on the normalised scale (fused ÷ best possible); explain shows the method's own number.
      score: s / max,
      explain: {
        ...(c.bm ? { bm25: { rank: c.bm.rank, score: c.bm.score } } : {}),
        ...(c.vec ? { vector: { rank: c.vec.rank, cosine: cosineOf(c.vec) } } : {}),
        fused: s,
      },
    };
  });
  ranked = ranked.filter((r) => r.score > 0);
  if (opts.method === 'rescue') {
    // Rescued documents enter after the first `rescueAfter` BM25 hits, not above them.
    const after = opts.rescueAfter ?? 3;
    const bm = ranked.filter((r) => r.explain.bm25).sort((a, b) => b.score - a.score);
    const rescued = ranked.filter((r) => !r.explain.bm25).sort((a, b) => b.score - a.score);
    const order = [...bm.slice(0, after), ...interleave(bm.slice(after), rescued)];
    ranked = order.map((r, i) => ({ ...r, score: 1 - i / (order.length + 1) }));
  }
  if (opts.boost && graph) ranked = applyBoost(ranked, opts.boost, graph);
  ranked.sort((a, b) => b.score - a.score);
  return opts.lift ? applyLift(ranked, vector, opts.lift) : ranked;
}

/**
 * Moves the vector channel's best document up to `rank` when its cosine clears the bar: it takes the score of the
 * document now at that rank plus a hair, so the order survives later demotions applied to scores (superseded,
 * stale) the same way as any other fused candidate.
 */
function applyLift(ranked: RankedDoc[], vector: VectorHit[], lift: { cosine: number; rank: number }): RankedDoc[] {
  const best = vector.reduce<VectorHit | undefined>((b, h) => (!b || h.score > b.score ? h : b), undefined);
  if (!best || cosineOf(best) < lift.cosine) return ranked;
  const at = ranked.findIndex((r) => r.docId === best.docId);
  const slot = Math.max(0, Math.floor(lift.rank) - 1);
  if (at <= slot) return ranked;
  const moved = { ...ranked[at], score: ranked[slot].score + 1e-9, explain: { ...ranked[at].explain, lifted: lift.rank } };
  const rest = ranked.filter((_, i) => i !== at);
  return [...rest.slice(0, slot), moved, ...rest.slice(slot)];
}

function interleave<T>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < b.length) out.push(b[i]);
    if (i < a.length) out.push(a[i]);
  }
  return out;
}

function applyBoost(ranked: RankedDoc[], boost: number, graph: GraphView): RankedDoc[] {
  const ids = ranked.map((r) => r.docId);
  const superseded = graph.superseded(ids);
  const neighbours = graph.neighbours(ids);
  const inPool = new Set(ids);
  return ranked.map((r) => {
    if (superseded.has(r.docId)) return r;
    const linked = [...(neighbours.get(r.docId) ?? [])].some((n) => n !== r.docId && inPool.has(n) && !superseded.has(n));
    return linked ? { ...r, score: r.score + boost, explain: { ...r.explain, boost } } : r;
  });
}

/** The graph view over the index's links table (resolved links only, both directions). */
export function indexGraph(idx: { all(sql: string, params?: unknown[]): Record<string, unknown>[] }): GraphView {
  return {
    neighbours(docIds) {
      const out = new Map<number, Set<number>>();
      if (!docIds.length) return out;
      const marks = docIds.map(() => '?').join(',');
      const rows = idx.all(`SELECT from_doc, to_doc FROM links WHERE to_doc IS NOT NULL AND (from_doc IN (${marks}) OR to_doc IN (${marks}))`, [...docIds, ...docIds]);
      const add = (a: number, b: number) => (out.get(a) ?? out.set(a, new Set()).get(a)!).add(b);
      for (const r of rows) {
        add(Number(r.from_doc), Number(r.to_doc));
        add(Number(r.to_doc), Number(r.from_doc));
      }
      return out;
    },
    superseded(docIds) {
      if (!docIds.length) return new Set();
      const rows = idx.all(`SELECT id FROM documents WHERE superseded = 1 AND id IN (${docIds.map(() => '?').join(',')})`, docIds);
      return new Set(rows.map((r) => Number(r.id)));
    },
  };
}
