import { join } from 'node:path';
import { countTokensSafe, SLICE } from './tally';

/**
 * Token counts everywhere in the product (loadout budget, offload reduction, GC reports, scoreboard) use one
 * real BPE tokenizer: OpenAI's o200k_base (GPT-4o / GPT-5 family) from the gpt-tokenizer package. Claude's
 * tokenizer is not public; o200k is the closest widely used public BPE and is deterministic offline.
 */
export const TOKENIZER_NAME = 'o200k_base (gpt-tokenizer)';

type Counter = (text: string) => number;
let counter: Counter | undefined;

declare const __K0MARU_BUNDLED__: boolean | undefined;

/**
 * The 200k-entry vocabulary is 3 MB of JavaScript: it is loaded on the first count, never at startup. In the
 * bundles it is its own file (dist/o200k.cjs) required by path, so processes that never count tokens (a git
 * hook, most MCP calls) do not even parse it.
 */
function load(): Counter {
  const bundled = typeof __K0MARU_BUNDLED__ !== 'undefined' && __K0MARU_BUNDLED__;
  const path = bundled ? join(__dirname, 'o200k.cjs') : 'gpt-tokenizer/encoding/o200k_base';
  return (require(path) as { countTokens: Counter }).countTokens;
}

/** The tokenizer as it is: exact, but quadratic in the length of one pre-token (see tally.ts). */
export function countTokensRaw(text: string): number {
  if (!text) return 0;
  counter ??= load();
  return counter(text);
}

/**
 * Token count of any text. Texts whose lines are all short (every real prompt, note and loadout) are counted
 * exactly in one call; a text with a line longer than 1,024 characters (minified code, base64, binary junk) is
 * counted line by line with long lines in slices, which over-counts by at most one token per slice but never
 * takes minutes.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  return hasLongLine(text) ? countTokensSafe(text) : countTokensRaw(text);
}

function hasLongLine(text: string): boolean {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    if (end - start > SLICE) return true;
    if (nl < 0) return false;
    start = nl + 1;
  }
}
