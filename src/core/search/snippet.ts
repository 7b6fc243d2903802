import { queryTokens, tokenize } from './ftsQuery';
import { stemOf, stemSet } from './stems';

/**
 * One line of text around the first word that matches a query token as BM25 matched it (same Porter stem:
 * "charging" places the snippet at "charged"), at most `width` characters, whitespace folded.
 */
export function makeSnippet(text: string, query: string, width = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  const at = firstMatch(flat, stemSet(queryTokens(query)));
  let start = at < 0 ? 0 : Math.max(0, at - Math.floor(width / 3));
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space > 0 && space - start < 20) start = space + 1;
  }
  let end = Math.min(flat.length, start + width);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start + width / 2) end = space;
  }
  return (start > 0 ? '…' : '') + flat.slice(start, end) + (end < flat.length ? '…' : '');
}

/**
 * Offset of the first word of `text` whose stem is one of `stems`, or -1. A word is stemmed only when it starts with
 * a stem less its last letter (Porter rewrites only a word's end: "happy" → "happi"), found by indexOf on the
 * lower-cased text, so a snippet costs a few µs, not a stemming of every word of the chunk.
 */
function firstMatch(text: string, stems: Set<string>): number {
  const lower = text.toLowerCase();
  let best = -1;
  for (const stem of stems) {
    const prefix = stem.length > 2 ? stem.slice(0, -1) : stem;
    for (let at = lower.indexOf(prefix); at >= 0 && (best < 0 || at < best); at = lower.indexOf(prefix, at + 1)) {
      if (at > 0 && WORD_CHAR.test(lower[at - 1])) continue;
      const word = WORD.exec(lower.slice(at, at + MAX_WORD))?.[0] ?? '';
      const tok = tokenize(word)[0];
      if (tok !== undefined && stems.has(stemOf(tok))) {
        best = at;
        break;
      }
    }
  }
  return best;
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const WORD = /^[\p{L}\p{N}\p{M}]+/u;
/** Longest word looked at: a run of letters longer than this is no query word. */
const MAX_WORD = 64;
