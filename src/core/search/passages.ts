import { crypto } from '../fsutil/lazyBuiltin';

/**
 * How an indexed chunk becomes the passages the vector channel embeds (the unit a vector belongs to): fixed
 * windows of words that fit the model, each with an optional prefix, hashed by exact text so that what is stored
 * under a hash is what was embedded.
 */

export interface PassageOptions {
  /**
   * Words per embedded passage. USE-lite reads 128 tokens; ~60 English words stay inside that window, where the
   * 100-word lexical chunks would be cut. A chunk longer than this yields several passages.
   */
  windowWords: number;
  /** Text put before every passage: nothing, the note title, or title and heading path. */
  prefix: 'none' | 'title' | 'title+heading';
}

export const DEFAULT_PASSAGES: PassageOptions = { windowWords: 60, prefix: 'title' };

export interface Passage {
  chunkId: number;
  docId: number;
  hash: string;
  text: string;
}

/** Splits one chunk into the passages the vector channel embeds. Deterministic: same chunk → same hashes. */
export function passagesOf(chunk: { id: number; docId: number; title: string; heading: string; text: string }, opts: PassageOptions): Passage[] {
  const words = chunk.text.split(/\s+/).filter(Boolean);
  const prefix = opts.prefix === 'none' ? '' : opts.prefix === 'title' ? chunk.title : [chunk.title, chunk.heading].filter(Boolean).join(' — ');
  const out: Passage[] = [];
  const { createHash } = crypto();
  const step = Math.max(1, opts.windowWords);
  for (let i = 0; i < Math.max(words.length, 1); i += step) {
    const body = words.slice(i, i + step).join(' ');
    const text = prefix && body ? `${prefix}\n${body}` : prefix || body;
    out.push({ chunkId: chunk.id, docId: chunk.docId, hash: createHash('sha1').update(text).digest('hex'), text });
  }
  return out;
}
