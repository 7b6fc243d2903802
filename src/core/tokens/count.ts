import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Token counts everywhere in the product (loadout budget, offload reduction, GC reports, scoreboard) use one
 * real BPE tokenizer: OpenAI's o200k_base (GPT-4o / GPT-5 family) from the gpt-tokenizer package. Claude's
 * tokenizer is not public; o200k is the closest widely used public BPE and is deterministic offline.
 */
export const TOKENIZER_NAME = 'o200k_base (gpt-tokenizer)';

export function countTokens(text: string): number {
  if (!text) return 0;
  return o200kCount(text);
}
