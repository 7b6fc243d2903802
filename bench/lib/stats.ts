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

/** Least-squares slope of log(y) over log(x): the exponent of y ∝ x^k. */
export function exponent(xs: number[], ys: number[]): number {
  const lx = xs.map(Math.log);
  const ly = ys.map(Math.log);
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  const num = lx.reduce((s, x, i) => s + (x - mx) * (ly[i] - my), 0);
  const den = lx.reduce((s, x) => s + (x - mx) ** 2, 0);
  return round(num / den, 3);
}
