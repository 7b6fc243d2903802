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

/** Offset of the first word of `text` whose stem is one of `stems`, or -1. */
function firstMatch(text: string, stems: Set<string>): number {
  for (const m of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) {
    const tok = tokenize(m[0])[0];
    if (tok !== undefined && stems.has(stemOf(tok))) return m.index;
  }
  return -1;
}
