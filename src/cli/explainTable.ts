import type { FusionOptions } from '../core/search/fusion';
import type { RecallHit } from '../core/search/types';

/**
 * `k0maru recall --explain` for a person: one row per candidate with its final score, BM25 and vector figures
 * (rank in each channel), the fused score and any boost, rounded. `--json` keeps every digit.
 */
export function num(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  // BM25 over a tiny vault gives scores like 2e-6: three decimals would print them all as 0.000.
  return Math.abs(v) < 0.001 ? v.toExponential(1) : v.toFixed(3);
}

export interface ExplainView {
  query: string;
  mode: string;
  effectiveMode: string;
  fusion: FusionOptions;
  warnings: string[];
  pendingVectors?: number;
  hits: RecallHit[];
}

export function renderExplainTable(x: ExplainView): string {
  const f = x.fusion;
  const fusion = [f.method, f.bm25Weight !== undefined ? `bm25 weight ${Number(f.bm25Weight.toFixed(3))}` : '', f.k !== undefined ? `k ${f.k}` : '', f.boost ? `boost ${num(f.boost)}` : '']
    .filter(Boolean)
    .join(', ');
  const lines = [`query: ${x.query}`, `mode: ${x.mode}${x.effectiveMode !== x.mode ? ` (answered as ${x.effectiveMode})` : ''} · fusion: ${fusion}${x.pendingVectors ? ` · ${x.pendingVectors} chunk(s) not embedded yet` : ''}`];
  for (const w of x.warnings) lines.push(`note: ${w}`);
  if (!x.hits.length) return [...lines, 'no matching notes'].join('\n');
  const rows = x.hits.map((h, i) => [
    String(i + 1),
    num(h.score),
    h.explain.bm25 ? `${num(h.explain.bm25.score)} (#${h.explain.bm25.rank})` : '–',
    h.explain.vector ? `${num(h.explain.vector.cosine)} (#${h.explain.vector.rank})` : '–',
    num(h.explain.fused),
    h.explain.boost ? `+${num(h.explain.boost)}` : '',
    `${h.path}${h.superseded ? ' [superseded]' : ''}`,
  ]);
  const head = ['#', 'score', 'bm25 (rank)', 'cosine (rank)', 'fused', 'boost', 'path'];
  const width = head.map((hd, c) => Math.max(hd.length, ...rows.map((r) => r[c].length)));
  const fmt = (r: string[]) => r.map((cell, c) => (c === r.length - 1 ? cell : c < 2 ? cell.padStart(width[c]) : cell.padEnd(width[c]))).join('  ').trimEnd();
  return [...lines, '', fmt(head), ...rows.map(fmt)].join('\n');
}
