/**
 * How figures read, in one place for every surface: the CLI, the offload summary an agent gets, the editor's views
 * and the console page all print a token reduction and a sum of money through these, so the same offload never
 * reads 99.5% in one place and 100% in another. No vscode, no node: the console page imports this file too.
 */

/**
 * A reduction (0..1, `1 − after/before`) as a percentage with one decimal, without the % sign: 0.99520 → "99.5".
 * Rounding never claims a round figure the data does not have: anything short of everything saved stays below
 * "100.0", anything above nothing saved stays above "0.0". A negative reduction (the summary cost more than the
 * log) prints with its minus sign; callers that promise a saving clamp it first.
 */
export function formatReductionPct(reduction: number): string {
  if (!Number.isFinite(reduction)) return '0.0';
  const pct = reduction * 100;
  const text = Math.abs(pct).toFixed(1);
  const sign = pct < 0 ? '-' : '';
  if (text === '100.0' && Math.abs(reduction) < 1) return `${sign}99.9`;
  if (text === '0.0' && pct !== 0) return `${sign}0.1`;
  return `${sign}${text}`;
}

/** A token change for a person: "26,484 → 127 tokens (−99.5%)"; a summary larger than its log reads "(+12.0%)". */
export function formatTokenChange(before: number, after: number, reduction: number): string {
  const pct = formatReductionPct(Math.abs(reduction));
  return `${formatInt(before)} → ${formatInt(after)} tokens (${reduction < 0 ? '+' : '−'}${pct}%)`;
}

/** 1234567 → "1,234,567" in every locale, so screenshots, transcripts and tests read the same. */
export function formatInt(n: number): string {
  const s = Math.round(Math.abs(n)).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 && Math.round(n) !== 0 ? `-${s}` : s;
}

/**
 * US dollars: cents below $100, whole dollars above. A sum that is not zero never reads "$0.00": below one cent it
 * is "<$0.01" (and "-<$0.01" for a loss), so a small saving is visibly a saving.
 */
export function formatUsd(n: number): string {
  if (!Number.isFinite(n)) return '$0.00';
  const abs = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  if (abs === 0) return '$0.00';
  if (abs < 0.01) return `${sign}<$0.01`;
  return abs >= 100 ? `${sign}$${formatInt(abs)}` : `${sign}$${abs.toFixed(2)}`;
}
