import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { K0Error } from '../errors';

/** Token ids for one text, already cut to the model's window. */
export interface TokenizedText {
  ids: number[];
  /**
   * Tokens the text had before truncation (tells callers when a chunk is too long for the window). For a text
   * longer than `maxChars` this is an estimate from the part that was read (see `cut`).
   */
  fullLength: number;
  /** The text was longer than the tokenizer reads (`maxChars`); only its beginning was tokenized. */
  cut: boolean;
}

export interface TextTokenizer {
  /** Longest text (UTF-16 units) tokenized as is; a longer one is read up to here — the model sees no further. */
  readonly maxChars: number;
  encode(text: string): TokenizedText;
}

/**
 * How far into a text the model can possibly see: `maxTokens` tokens of at most the vocabulary's longest piece,
 * doubled because Unicode normalisation (NFKC) may fold two source characters into one. Reading beyond that is
 * waste, and it is worse than waste: @huggingface/tokenizers gathers a pre-token's pieces with
 * `push(...pieces)`, and this model's tokenizer has no pre-tokenizer (the whole text is one pre-token), so a text
 * of ~120,000 tokens — one 600,000-character note without spaces — overflowed the call stack and failed every
 * hybrid recall of the vault. Tokenizing also costs ~2 ms per 1,000 characters: the cap bounds that too.
 */
export function readableChars(maxTokens: number, longestPiece: number): number {
  return Math.max(256, maxTokens * Math.max(1, longestPiece) * 2);
}

function longestPieceOf(json: { model?: { vocab?: unknown } }): number {
  const vocab = json.model?.vocab;
  let longest = 0;
  if (Array.isArray(vocab)) for (const entry of vocab) longest = Math.max(longest, String(Array.isArray(entry) ? entry[0] : entry).length);
  else if (vocab && typeof vocab === 'object') for (const piece of Object.keys(vocab)) longest = Math.max(longest, piece.length);
  return longest || 32;
}

/** The beginning of `text` the tokenizer reads: cut at a space near `maxChars` when there is one, so no word is split. */
export function readablePrefix(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  const space = text.lastIndexOf(' ', end);
  return text.slice(0, space > maxChars / 2 ? space : end);
}

/** Loads a tokenizer.json with @huggingface/tokenizers; the model's special tokens, if any, are kept. */
export function loadTokenizer(path: string, maxTokens: number): TextTokenizer {
  let tok: Tokenizer;
  let maxChars: number;
  try {
    const json = JSON.parse(readFileSync(path, 'utf8'));
    tok = new Tokenizer(json, {});
    maxChars = readableChars(maxTokens, longestPieceOf(json));
  } catch (err) {
    throw new K0Error('MODEL_UNAVAILABLE', `tokenizer ${path} cannot be loaded: ${(err as Error).message}`, { path });
  }
  return {
    maxChars,
    encode(text: string): TokenizedText {
      const read = readablePrefix(text, maxChars);
      const ids = tok.encode(read).ids;
      const cut = read.length < text.length;
      const fullLength = cut ? Math.max(ids.length + 1, Math.round((ids.length * text.length) / Math.max(1, read.length))) : ids.length;
      return { ids: ids.length > maxTokens ? ids.slice(0, maxTokens) : ids, fullLength, cut };
    },
  };
}
