import { isK0Error, K0Error } from '../errors';
import type { IndexDb } from '../index/db';
import type { Tier } from '../index/tiers';
import type { Project } from '../project';
import { readStale } from '../stale';
import type { StaleInfo } from '../stale/types';
import { readNoteText } from '../vault/noteSources';
import type { VaultPaths } from '../vault/paths';
import { searchBm25, type ChannelHit } from './bm25';
import { answerGateFor, applyAnswerGate, applyFloor, bestNoteCoverage, knownShare, MATCHED_SHARE, MIN_KNOWN_SHARE } from './floor';
import type { VectorHit } from './fusion';
import { HYBRID_LEXICAL, type LexicalSearch } from './paraphrase';
import { makeSnippet } from './snippet';
import { isTemplateNote } from '../vault/templateNotes';
import type { RankedDoc, RecallHit, RecallMode, RecallResult, VectorChannel, VectorCoverage } from './types';

export interface RecallOptions {
  limit?: number;
  mode?: RecallMode;
  full?: boolean;
  vectors?: VectorChannel;
  /**
   * Which candidates are stale. Default: what the last scan recorded in the index (readStale, no git call).
   * bench/staleFactor.ts marks notes stale synthetically through it.
   */
  staleness?: (idx: IndexDb, docIds: number[]) => Map<number, StaleInfo>;
  /** The demotion of a stale note (default STALE_FACTOR); only bench/staleFactor.ts sets it, to measure candidates. */
  staleFactor?: number;
  /** The lexical channel of hybrid mode (default HYBRID_LEXICAL, paraphrase.ts); bench/quality measures candidates through it. */
  lexical?: LexicalSearch;
}

/** Superseded notes stay findable (someone may look for the old decision) but rank below what replaced them. */
const SUPERSEDED_FACTOR = 0.5;
/**
 * A template (vault/templateNotes.ts) stays findable by name ("our ADR template") but never outranks a note
 * with content: the same demotion as a superseded note, applied after fusion, so the lift cannot place one either.
 */
const TEMPLATE_FACTOR = 0.5;
/**
 * A stale note (code it names changed since it was last true) may still be right, so it is demoted far less than a
 * superseded one, and it must never hide the only answer. Measured by bench/staleFactor.ts on the 56 graded
 * queries of bench/quality/queries.json over the real ADR corpus (380 notes), notes marked stale in-process:
 * (a) of the 10 ordered pairs of equal-grade relevant notes both in the top 20, how often the fresh one ranks
 * above the stale one; (b) of the 27 single-answer queries answered in the top 5, how many still are when their
 * one answer is stale (bench/results/staleFactor-*.json).
 *
 *   factor          1.0   0.95  0.9   0.85  0.8   0.7   0.6   0.5   0.4   0.3
 *   hybrid (a)      5/10  7/10  7/10  9/10 10/10 10/10 10/10 10/10 10/10 10/10
 *   hybrid (b)     27/27 27/27 27/27 26/27 26/27 25/27 25/27 24/27 21/27 17/27
 *   bm25   (a)      5/10  9/10  9/10  9/10  9/10 10/10 10/10 10/10 10/10 10/10
 *   bm25   (b)     27/27 27/27 27/27 25/27 25/27 25/27 24/27 23/27 20/27 15/27
 *
 * 0.9 is the strongest demotion that hides no only answer in either mode: 0.85 already pushes one (hybrid) or two
 * (BM25) of 27 out of the top 5. (10 pairs is all the graded set offers: (a) is coarse.)
 */
export const STALE_FACTOR = 0.9;
export const MAX_LIMIT = 100;

export async function recall(project: Pick<Project, 'index' | 'paths'>, query: string, opts: RecallOptions = {}): Promise<RecallResult> {
  const t0 = performance.now();
  if (typeof query !== 'string' || !query.trim()) throw new K0Error('INVALID_ARGUMENT', 'query must be a non-empty string');
  const limit = opts.limit ?? 5;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new K0Error('INVALID_ARGUMENT', `limit must be an integer from 1 to ${MAX_LIMIT}`);
  const mode = opts.mode ?? 'hybrid';
  if (!['hybrid', 'bm25', 'vector'].includes(mode)) throw new K0Error('INVALID_ARGUMENT', `mode must be hybrid, bm25 or vector`);
  const demote = { lookup: opts.staleness ?? readStale, factor: opts.staleFactor ?? STALE_FACTOR };
  if (!(demote.factor > 0 && demote.factor <= 1)) throw new K0Error('INVALID_ARGUMENT', 'staleFactor must be in (0, 1]');
  const pool = Math.max(limit * 3, 20);
  const warnings: string[] = [];
  const idx = project.index;

  // What is ranked, as a synchronous step: it runs with the dressing in one read transaction (IndexDb.read), after
  // the vector channel's await — a transaction never spans an await.
  let rank: () => RankedDoc[];
  let effectiveMode: RecallMode = mode;
  let pending: number | undefined;
  let coverage: VectorCoverage | undefined;
  const vectors = opts.vectors;
  if (mode !== 'bm25' && !vectors) {
    warnings.push('vector channel unavailable (no embedding model loaded): answered with BM25 only');
    effectiveMode = 'bm25';
  }
  if (effectiveMode === 'bm25') {
    rank = () => fromChannel(searchBm25(idx, query, pool), 'bm25');
  } else {
    pending = vectors!.pending();
    coverage = vectors!.coverage?.();
    if (pending > 0) warnings.push(`${pending} chunk(s) still waiting for vectors: the vector channel covers part of the vault`);
    // A dead embedding worker or a broken model must not fail recall: answer with BM25 and say why.
    const vec = await vectors!.search(query, pool).catch((err: unknown) => {
      if (!isK0Error(err) || err.code !== 'MODEL_UNAVAILABLE') throw err;
      warnings.push(`${err.message}: answered with BM25 only`);
      return undefined;
    });
    if (!vec) {
      effectiveMode = 'bm25';
      coverage = undefined;
      rank = () => fromChannel(searchBm25(idx, query, pool), 'bm25');
    } else if (mode === 'vector') rank = () => applyFloor(fromChannel(vec, 'vector'), vectors!.floor);
    // The floor applies after fusion, so the scores of what stays are those of the unfloored fusion.
    else rank = () => gate(idx, query, applyFloor(vectors!.fuse((opts.lexical ?? HYBRID_LEXICAL)(idx, query, pool), vec, { limit, pool }), vectors!.floor), vec, vectors!.floor, warnings);
  }

  const hits = idx.read(() => dress(idx, project.paths, rank(), query, !!opts.full, demote, warnings, limit));
  return { query, mode, effectiveMode, hits, warnings, pendingVectors: pending, coverage, effectiveModeLabel: modeLabel(effectiveMode, coverage), tookMs: performance.now() - t0 };
}

/**
 * The answer gate of the channel's calibration (floor.ts): a query with words the vault has never seen keeps its
 * answer only with a passage close enough; the vault is probed for the query's words only when that can matter.
 */
function gate(idx: IndexDb, query: string, ranked: RankedDoc[], vec: VectorHit[], floor: number | undefined, warnings: string[]): RankedDoc[] {
  const g = answerGateFor(floor);
  if (g === undefined || floor === undefined || !ranked.length) return ranked;
  const known = knownShare(idx, query);
  if (known >= 1) return ranked;
  // Most of the query's words together in one note BM25 found: a real match in the vault's words, whatever the cosine.
  const lexical = ranked.filter((r) => r.explain.bm25).sort((a, b) => a.explain.bm25!.rank - b.explain.bm25!.rank);
  if (known >= MIN_KNOWN_SHARE && bestNoteCoverage(idx, query, lexical.map((r) => r.docId)) > MATCHED_SHARE) return ranked;
  const best = vec.reduce((m, h) => Math.max(m, h.cosine ?? h.score), -1);
  const kept = applyAnswerGate(ranked, known, best, { floor, gate: g });
  if (!kept.length) warnings.push(`no matching notes: ${Math.round((1 - known) * 100)} % of the query's words occur in no note and no passage is close enough (best cosine ${best.toFixed(2)} < ${known < MIN_KNOWN_SHARE ? floor : g})`);
  return kept;
}

/** "hybrid", or "hybrid (partial: 41 % of passages)" while the vector channel covers part of the vault. */
export function modeLabel(mode: RecallMode, coverage: VectorCoverage | undefined): string {
  if (mode === 'bm25' || !coverage || coverage.embedded >= coverage.passages) return mode;
  // Rounded down: a vault one passage short of complete says 99 %, never 100 %.
  const pct = Math.floor((100 * coverage.embedded) / Math.max(1, coverage.passages));
  return `${mode} (partial: ${pct} % of passages)`;
}

function fromChannel(hits: ChannelHit[], channel: 'bm25' | 'vector'): RankedDoc[] {
  return hits.map((h) => ({
    docId: h.docId,
    chunkId: h.chunkId,
    score: h.score,
    explain: channel === 'bm25' ? { bm25: { rank: h.rank, score: h.score } } : { vector: { rank: h.rank, cosine: h.score } },
  }));
}

interface Demotion {
  lookup: (idx: IndexDb, docIds: number[]) => Map<number, StaleInfo>;
  factor: number;
}

/** The stale candidates; a broken staleness table must not fail recall: the answer says it could not tell. */
function staleOf(idx: IndexDb, ids: number[], demote: Demotion, warnings: string[]): Map<number, StaleInfo> {
  try {
    return demote.lookup(idx, ids);
  } catch (err) {
    warnings.push(`staleness unknown for this answer (${(err as Error).message})`);
    return new Map();
  }
}

/**
 * Applies the superseded, template and stale demotions to every candidate, keeps the best `limit`, and loads what
 * the caller sees for those only: link counts, the chunk and its snippet are read for the answer, not for the whole
 * pool (at 5,000 notes that was a third of a BM25 recall's time).
 */
function dress(idx: IndexDb, paths: VaultPaths, ranked: RankedDoc[], query: string, full: boolean, demote: Demotion, warnings: string[], limit: number): RecallHit[] {
  if (!ranked.length) return [];
  const ids = [...new Set(ranked.map((r) => r.docId))];
  const docs = new Map(idx.all(`SELECT id, path, title, tier, superseded FROM documents WHERE id IN (${marks(ids)})`, ids).map((r) => [Number(r.id), r]));
  const stale = staleOf(idx, ids, demote, warnings);
  const scored = ranked
    .filter((r) => docs.has(r.docId))
    .map((r) => {
      const d = docs.get(r.docId)!;
      const superseded = Number(d.superseded) === 1;
      const template = isTemplateNote(String(d.path));
      const staleInfo = stale.get(r.docId);
      // The demotions multiply: a superseded note whose code also moved on is the least likely answer.
      const factor = (superseded ? SUPERSEDED_FACTOR : 1) * (template ? TEMPLATE_FACTOR : 1) * (staleInfo ? demote.factor : 1);
      return { r, superseded, template, staleInfo, score: r.score * factor };
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
  const shownDocs = [...new Set(scored.map((x) => x.r.docId))];
  const links = new Map(
    idx
      .all(
        `SELECT d.id,
                (SELECT COUNT(DISTINCT l.from_doc) FROM links l WHERE l.to_doc = d.id AND l.from_doc != d.id) AS links_in,
                (SELECT COUNT(DISTINCT l.target) FROM links l WHERE l.from_doc = d.id) AS links_out
           FROM documents d WHERE d.id IN (${marks(shownDocs)})`,
        shownDocs,
      )
      .map((r) => [Number(r.id), r]),
  );
  const chunkIds = scored.map((x) => x.r.chunkId);
  const chunks = new Map(idx.all(`SELECT id, heading, text, line FROM chunks WHERE id IN (${marks(chunkIds)})`, chunkIds).map((r) => [Number(r.id), r]));
  return scored.map(({ r, superseded, template, staleInfo, score }) => {
    const d = docs.get(r.docId)!;
    const c = chunks.get(r.chunkId);
    const l = links.get(r.docId);
    const path = String(d.path);
    return {
      path,
      title: String(d.title),
      tier: String(d.tier) as Tier,
      score,
      snippet: makeSnippet(c ? String(c.text) : '', query),
      heading: c ? String(c.heading) : '',
      line: c ? Number(c.line) : 1,
      linksIn: Number(l?.links_in ?? 0),
      linksOut: Number(l?.links_out ?? 0),
      superseded,
      ...(template ? { template: true as const } : {}),
      ...(staleInfo ? { stale: staleInfo } : {}),
      explain: staleInfo ? { ...r.explain, staleFactor: demote.factor } : r.explain,
      markdown: full ? readNote(paths, path) : undefined,
    };
  });
}

const marks = (xs: unknown[]): string => xs.map(() => '?').join(',');

function readNote(paths: VaultPaths, path: string): string {
  try {
    // Vault and project ADR paths alike, never through a symlink leading outside, never blocking on a FIFO.
    return readNoteText(paths, path);
  } catch (err) {
    return `(note could not be read: ${(err as Error).message})`;
  }
}
