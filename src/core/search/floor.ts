import type { IndexDb } from '../index/db';
import { queryTokens } from './ftsQuery';
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

/** Share of the query's distinct content words that occur in at least one chunk (one indexed FTS probe each). */
export function knownShare(idx: IndexDb, query: string): number {
  const words = [...new Set(queryTokens(query))];
  if (!words.length) return 1;
  let known = 0;
  for (const w of words) if (idx.get('SELECT 1 AS x FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1', [`"${w}"`])) known++;
  return known / words.length;
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
