import type { ParsedNote } from '../vault/markdown';
import { chunkNote } from './chunk';
import { bucketOf, tokenCount } from './ftsLayout';
import { isRetiredStatus, tierFor } from './tiers';
import { extractStatus } from '../vault/status';

/**
 * Everything the index stores for one note, worked out from its parse alone: plain arrays of strings and numbers,
 * so a parse worker thread can build them and post them to the thread that writes SQLite (src/core/scan/parsePool.ts).
 * The document's own id is not known until its row is inserted; the writer puts it in front of each chunk and link.
 */
export interface PreparedDocument {
  /** documents columns after path, hash, mtime_ms and size: title … warnings (store.ts's insertDoc order). */
  meta: unknown[];
  /** Per chunk: ord, heading, text, line, end_line, hash, fts_bucket. */
  chunks: unknown[][];
  /** Per link: target (lower-cased), heading, line, embed. */
  links: unknown[][];
}

export function prepareDocument(path: string, note: ParsedNote, warnings: string[], chunkHash: (text: string) => string): PreparedDocument {
  const fm = note.frontmatter;
  const category = typeof fm.category === 'string' ? fm.category : typeof fm.type === 'string' ? fm.type : undefined;
  const status = extractStatus(note);
  const superseded = isRetiredStatus(status) || (fm.superseded_by !== undefined && fm.superseded_by !== null && fm.superseded_by !== '');
  const date = fm.date instanceof Date ? fm.date.toISOString().slice(0, 10) : typeof fm.date === 'string' ? fm.date : null;
  const meta = [
    note.title,
    tierFor(path, category),
    category ?? null,
    status ?? null,
    date,
    JSON.stringify(note.tags),
    superseded ? 1 : 0,
    safeJson(fm),
    warnings.length ? JSON.stringify(warnings) : null,
  ];
  // The row's length as FTS5 counts it picks its bucket (ftsLayout.ts): title, heading and text together.
  const titleTokens = tokenCount(note.title);
  const chunks = chunkNote(note).map((c) => [
    c.ord, c.heading, c.text, c.line, c.endLine, chunkHash(c.text),
    bucketOf(titleTokens + tokenCount(c.heading) + tokenCount(c.text)),
  ]);
  const links = note.links.map((l) => [l.target.toLowerCase(), l.heading ?? null, l.line, l.embed ? 1 : 0]);
  return { meta, chunks, links };
}

function safeJson(v: unknown): string {
  try {
    // Without a replacer first (several times faster); only a BigInt makes it throw, and the replacer is then
    // needed. Both give the same text for anything else.
    return JSON.stringify(v) ?? '{}';
  } catch {
    // fall through
  }
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x)) ?? '{}';
  } catch {
    return '{}';
  }
}
