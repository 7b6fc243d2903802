import type { RankedDoc } from './types';

/**
 * The relevance floor: the cosine a vector-only hit (one BM25 did not find) must reach to be shown. Without it
 * any query, nonsense included, gets the nearest passages back, however far they are (USE-lite puts unrelated
 * text at cosine ≈ 0.3–0.5). Cosines are not comparable across models, so the floor is per model id and
 * calibrated on the real ADR corpus by bench/quality/floor.ts (docs/embeddings.md has the figures). A model
 * without a calibrated floor gets none: a guessed one could hide every true hit of that model.
 */
export const RELEVANCE_FLOORS: Readonly<Record<string, number>> = {
  'use-lite-en-v1': 0.58,
};

export function relevanceFloor(modelId: string): number | undefined {
  return RELEVANCE_FLOORS[modelId];
}

/** Drops vector-only candidates below the floor; anything BM25 found stays whatever its cosine. */
export function applyFloor(ranked: RankedDoc[], floor: number | undefined): RankedDoc[] {
  if (floor === undefined) return ranked;
  return ranked.filter((r) => r.explain.bm25 || !r.explain.vector || r.explain.vector.cosine >= floor);
}
