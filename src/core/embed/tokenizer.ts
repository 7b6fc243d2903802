import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { K0Error } from '../errors';

/** Token ids for one text, already cut to the model's window. */
export interface TokenizedText {
  ids: number[];
  /** Tokens the text had before truncation (tells callers when a chunk is too long for the window). */
  fullLength: number;
}

export interface TextTokenizer {
  encode(text: string): TokenizedText;
}

/** Loads a tokenizer.json with @huggingface/tokenizers; the model's special tokens, if any, are kept. */
export function loadTokenizer(path: string, maxTokens: number): TextTokenizer {
  let tok: Tokenizer;
  try {
    tok = new Tokenizer(JSON.parse(readFileSync(path, 'utf8')), {});
  } catch (err) {
    throw new K0Error('MODEL_UNAVAILABLE', `tokenizer ${path} cannot be loaded: ${(err as Error).message}`, { path });
  }
  return {
    encode(text: string): TokenizedText {
      const ids = tok.encode(text).ids;
      return { ids: ids.length > maxTokens ? ids.slice(0, maxTokens) : ids, fullLength: ids.length };
    },
  };
}
