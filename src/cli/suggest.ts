/**
 * "Did you mean …" for mistyped commands and flags (`recal`, `--mdoe`). Optimal string alignment distance (edits
 * plus adjacent transpositions, so `mdoe` → `mode` is one step), accepted only when the typo is small relative to
 * the word, so a random word gets no suggestion rather than a misleading one.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The closest candidate within the typo budget (a prefix of a candidate also counts: `reca` → `recall`), or undefined. */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const word = input.toLowerCase();
  if (!word) return undefined;
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = c.startsWith(word) && word.length >= 3 ? 1 : editDistance(word, c.toLowerCase());
    const budget = Math.max(1, Math.min(2, Math.floor(c.length / 3)));
    if (d <= budget && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/** `--mdoe=x` → `--mode`, among the long flags a command accepts. */
export function closestFlag(flag: string, optionNames: readonly string[]): string | undefined {
  const bare = flag.replace(/^--?/, '').split('=')[0];
  const hit = closest(bare, optionNames);
  return hit === undefined ? undefined : `--${hit}`;
}
