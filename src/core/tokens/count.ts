/**
 * Token counts everywhere in the product (loadout budget, offload reduction, GC reports, scoreboard) use one
 * real BPE tokenizer: OpenAI's o200k_base (GPT-4o / GPT-5 family) from the gpt-tokenizer package. Claude's
 * tokenizer is not public; o200k is the closest widely used public BPE and is deterministic offline.
 */
export const TOKENIZER_NAME = 'o200k_base (gpt-tokenizer)';

type Counter = (text: string) => number;
let counter: Counter | undefined;

/** The 200k-entry vocabulary takes a noticeable moment to build: load it on the first count, not at startup. */
function load(): Counter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('gpt-tokenizer/encoding/o200k_base') as { countTokens: Counter };
  return mod.countTokens;
}

export function countTokens(text: string): number {
  if (!text) return 0;
  counter ??= load();
  return counter(text);
}
