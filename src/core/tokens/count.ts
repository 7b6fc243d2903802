import { join } from 'node:path';

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

export function countTokens(text: string): number {
  if (!text) return 0;
  counter ??= load();
  return counter(text);
}
