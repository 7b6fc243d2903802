export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}
export const median = (xs: number[]) => percentile(xs, 50);
export const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
export function timeIt(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}
export async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}
