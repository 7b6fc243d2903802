import type { IndexDb } from '../index/db';
import { queryTokens, tokenize } from './ftsQuery';
import { stemSet } from './stems';
import type { RankedDoc } from './types';

/**
 * The relevance floor: the cosine a vector-only hit (one BM25 did not find) must reach to be shown. Without it
 * any query, nonsense included, gets the nearest passages back, however far they are (USE-lite puts unrelated
 * text at cosine ≈ 0.3–0.5). Cosines are not comparable across models, so the floor is per model id and
 * calibrated on the real ADR corpus by bench/quality/floor.ts (docs/embeddings.md has the figures). A model
 * without a calibrated floor gets none: a guessed one could hide every true hit of that model.
 *
 * The answer gate, of the same calibration: a query with a content word the vault has never seen (`how to change
 * a flat bicycle tyre`: "bicycle", "tyre") is answered only if some passage reaches `gate` — otherwise its BM25
 * hits are accidents on its common words ("change", "flat") and the answer is "no matching notes". A query most
 * of whose content words the vault has never seen has no lexical match at all: only vector hits over the floor
 * may answer it. Queries whose every word occurs in the vault are never gated.
 */
export interface FloorCalibration {
  /** Cosine a vector-only hit must reach. */
  floor: number;
  /** Best cosine a query with an unknown word needs to be answered at all. */
  gate: number;
}

export const CALIBRATIONS: Readonly<Record<string, FloorCalibration>> = {
  'use-lite-en-v1': { floor: 0.58, gate: 0.51 },
  // Its int8 conversion, the default model (helper E, issue 14 item 3): every off-topic query's best cosine is
  // ≤ 0.555 (float: 0.567) and the int8 vectors are within cosine 0.995 of the float ones, so the same values hold.
  'use-lite-en-v1-int8': { floor: 0.58, gate: 0.51 },
};

/** Below this share of content words known to the vault, BM25's hits for a query do not count as a match. */
export const MIN_KNOWN_SHARE = 0.5;

export function relevanceFloor(modelId: string): number | undefined {
  return CALIBRATIONS[modelId]?.floor;
}

/**
 * The gate of the calibration a channel's floor came from. The channel carries only its model's floor (it is
 * built by relevanceFloor(modelId)), so the gate is found by it; an uncalibrated floor has no gate.
 */
export function answerGateFor(floor: number | undefined): number | undefined {
  if (floor === undefined) return undefined;
  return Object.values(CALIBRATIONS).find((c) => c.floor === floor)?.gate;
}

/** Drops vector-only candidates below the floor; anything BM25 found stays whatever its cosine. */
export function applyFloor(ranked: RankedDoc[], floor: number | undefined): RankedDoc[] {
  if (floor === undefined) return ranked;
  return ranked.filter((r) => r.explain.bm25 || !r.explain.vector || r.explain.vector.cosine >= floor);
}

/**
 * Share of the query's distinct content words that occur in at least one chunk, as they are or as another form of
 * the same word: the index is Porter-stemmed (schema.ts), so the probe `"charging"` finds a vault that says
 * "charged". Exact stems only — a prefix probe on the stem made "boil" known to any vault that says "boilerplate".
 * One indexed FTS probe per word.
 */
export function knownShare(idx: IndexDb, query: string): number {
  const words = [...new Set(queryTokens(query))];
  if (!words.length) return 1;
  return words.filter((w) => occurs(idx, `"${w}"`)).length / words.length;
}

/**
 * Above this share of the query's content words found together in one note, its BM25 hit is a match, not an
 * accident, and the gate does not apply. Accidents spread over common words: no off-topic query of
 * bench/quality/offtopic.json has a top BM25 note with more than half its words (40 queries, both halves: max 0.50),
 * while "how do we stop charging a customer twice" finds 3 of its 4 in the demo's double-charge ADR.
 */
export const MATCHED_SHARE = 0.5;
/** The BM25 notes looked at, and how much of each: enough for the top of any answer, bounded for huge notes. */
const COVERAGE_DOCS = 3;
const COVERAGE_CHARS = 200_000;

/**
 * The largest share of the query's distinct content words that one of the top BM25 notes contains (as they are or
 * as another form of the same word). `docIds` are the BM25 channel's notes, best first.
 */
export function bestNoteCoverage(idx: IndexDb, query: string, docIds: number[]): number {
  const words = [...stemSet(queryTokens(query))];
  if (!words.length) return 1;
  let best = 0;
  for (const doc of [...new Set(docIds)].slice(0, COVERAGE_DOCS)) {
    const text = idx.all('SELECT heading, text FROM chunks WHERE doc_id = ? ORDER BY ord', [doc]).map((r) => `${r.heading}\n${r.text}`).join('\n').slice(0, COVERAGE_CHARS);
    const stems = stemSet(tokenize(text));
    best = Math.max(best, words.filter((w) => stems.has(w)).length / words.length);
  }
  return best;
}

function occurs(idx: IndexDb, match: string): boolean {
  return !!idx.get('SELECT 1 AS x FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1', [match]);
}

/**
 * Applies the answer gate to a fused, floored answer: `bestCosine` is the vector channel's best passage for the
 * query. Returns the candidates that may be shown (all, only the vector ones over the floor, or none).
 */
export function applyAnswerGate(ranked: RankedDoc[], known: number, bestCosine: number, cal: FloorCalibration): RankedDoc[] {
  if (known >= 1 || !ranked.length) return ranked;
  if (known < MIN_KNOWN_SHARE) return ranked.filter((r) => !!r.explain.vector && r.explain.vector.cosine >= cal.floor);
  return bestCosine >= cal.gate ? ranked : [];
}
