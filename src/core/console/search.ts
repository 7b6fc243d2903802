import type { ParamsOf, SearchResult } from '../../shared/protocol';
import type { Project } from '../project';
import { fuse, indexGraph, parseFusion, type FusionOptions } from '../search/fusion';
import { recallWithVectors, type VectorSource } from '../host/recallPolicy';
import type { RecallHit, VectorChannel } from '../search/types';

/** Says what a fusion preset computes, for the debugger's status line (the fused column means this). */
export function describeFusion(f: FusionOptions): string {
  const boost = f.boost ? `, graph boost +${f.boost.toFixed(2)}` : '';
  switch (f.method) {
    case 'rrf':
    case 'wrrf': {
      const wb = f.bm25Weight ?? (f.method === 'rrf' ? 0.5 : 0.8);
      return `RRF k=${f.k ?? 60}, BM25 ${wb} / vector ${+(1 - wb).toFixed(2)}${boost}`;
    }
    case 'blend':
      return `score blend, BM25 ${f.bm25Weight ?? 0.7} / vector ${+(1 - (f.bm25Weight ?? 0.7)).toFixed(2)}${boost}`;
    case 'rescue':
      return `BM25 order + vector rescue (cosine ≥ ${f.rescueCosine ?? 0.35})${boost}`;
  }
}

/**
 * Recall with every per-channel figure, under the fusion the debugger asked for, and under the one recall policy
 * (recallWithVectors: BM25 with the host's reason until a model loads). The channel's own fusion is replaced for
 * this call only, so comparing presets never changes what agents get.
 */
export async function searchForConsole(project: Project, p: ParamsOf<'search'>, vectors: VectorSource): Promise<SearchResult> {
  const fusion = parseFusion(p.fusion);
  const graph = indexGraph(project.index);
  const adaptChannel = (c: VectorChannel): VectorChannel => ({
    search: (q, pool) => c.search(q, pool),
    pending: () => c.pending(),
    fuse: (lexical, vector) => fuse(lexical, vector, fusion, graph),
  });
  const r = await recallWithVectors(project, p.query, { limit: p.limit, mode: p.mode, adaptChannel }, vectors);
  return {
    query: r.query,
    mode: r.mode,
    effectiveMode: r.effectiveMode,
    effectiveModeLabel: r.effectiveModeLabel,
    coverage: r.coverage ? { embedded: r.coverage.embedded, passages: r.coverage.passages } : undefined,
    fusion: r.effectiveMode === 'hybrid' ? describeFusion(fusion) : r.effectiveMode === 'bm25' ? 'BM25 only' : 'vector only',
    warnings: r.warnings,
    pendingVectors: r.pendingVectors,
    tookMs: r.tookMs,
    hits: r.hits.map((h) => ({
      path: h.path,
      title: h.title,
      tier: h.tier,
      heading: h.heading,
      line: h.line,
      snippet: h.snippet,
      superseded: h.superseded,
      ...(h.template ? { template: true } : {}),
      score: h.score,
      bm25: h.explain.bm25,
      vector: h.explain.vector,
      fused: h.explain.fused,
      boost: h.explain.boost,
      stale: staleMark(h),
      staleFactor: h.explain.staleFactor,
    })),
  };
}

/** The hit's staleness as the page shows it (the reason, the base commit, each stale anchor). */
function staleMark(hit: RecallHit): SearchResult['hits'][number]['stale'] {
  const s = hit.stale;
  if (!s) return undefined;
  return { reason: s.reason, since: s.since, base: s.base, anchors: s.anchors.map((a) => ({ anchor: a.anchor, path: a.path, reason: a.reason })) };
}
