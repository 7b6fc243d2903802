import { countTokens } from '../tokens/count';

/** One line of a loadout with how much it matters; sections group lines under a heading. */
export interface LoadoutLine {
  text: string;
  /** Higher survives longer when the budget is tight. */
  priority: number;
  /**
   * A shorter form that says the essentials (a stale decision without its reason): used, lowest priority first,
   * before any line is dropped, so detail goes before whole facts do.
   */
  short?: string;
}

export interface LoadoutSection {
  heading?: string;
  lines: LoadoutLine[];
}

/**
 * Renders sections within `budget` tokens (real BPE count of the whole text): first shortens the lines that have
 * a short form, then drops the lowest-priority line until it fits; never cuts a line in half, and drops a
 * heading whose lines are all gone.
 */
export function fitToBudget(sections: LoadoutSection[], budget: number): { text: string; tokens: number; dropped: number; shortened: number } {
  const live = sections.map((s) => ({ heading: s.heading, lines: s.lines.map((l) => ({ ...l })) }));
  const render = () =>
    live
      .filter((s) => s.lines.length)
      .map((s) => [s.heading !== undefined ? s.heading : null, ...s.lines.map((l) => l.text)].filter((x): x is string => x !== null).join('\n'))
      .join('\n\n');
  let dropped = 0;
  let shortened = 0;
  let text = render();
  let tokens = countTokens(text);
  const longOnes = live
    .flatMap((s) => s.lines)
    .filter((l) => l.short !== undefined && l.short !== l.text)
    .sort((a, b) => a.priority - b.priority);
  for (const l of longOnes) {
    if (tokens <= budget) break;
    l.text = l.short!;
    shortened++;
    text = render();
    tokens = countTokens(text);
  }
  while (tokens > budget) {
    let worst: { s: number; i: number; p: number } | undefined;
    live.forEach((s, si) =>
      s.lines.forEach((l, li) => {
        // Among equal priorities the later line goes first: lists are ordered most relevant first.
        if (!worst || l.priority <= worst.p) worst = { s: si, i: li, p: l.priority };
      }),
    );
    if (!worst) break;
    live[worst.s].lines.splice(worst.i, 1);
    dropped++;
    text = render();
    tokens = countTokens(text);
  }
  return { text, tokens, dropped, shortened };
}
