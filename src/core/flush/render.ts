import { stringify } from 'yaml';
import { K0Error } from '../errors';
import { parseFrontmatter } from '../vault/frontmatter';
import { isoDate } from '../conventions/sniff';
import { normalizeCategory } from '../conventions/types';
import { cleanRef } from './resolveNote';

/** What an agent (MCP `flush_session`, `k0maru flush`, the distiller) hands the flush engine. */
export interface FlushInput {
  title: string;
  /** Markdown body. May start with its own `---` frontmatter: its extra keys are kept. */
  content: string;
  summary?: string;
  /** 'decision' | 'log' | 'concept' (alias 'card') | 'skill' | a custom name. Default 'log'. */
  category?: string;
  tags?: string[];
  /** Existing notes to link: names, paths or `[[WikiLinks]]` (`#heading` and `|alias` kept). */
  related_notes?: string[];
  /** Notes / ADRs this one replaces: ADR id, title, file name or vault path. */
  supersedes?: string | string[];
  /** `YYYY-MM-DD`; default today (local time). */
  date?: string;
}

/** Content above this is refused: a note is knowledge, not a log dump (offload_context is for those). */
export const MAX_CONTENT_BYTES = 1024 * 1024;
const MAX_TITLE_CHARS = 300;
const MAX_LIST = 100;

export interface NormalizedInput {
  title: string;
  body: string;
  /** Keys from the content's own frontmatter. */
  contentFrontmatter: Record<string, unknown>;
  summary?: string;
  category: string;
  tags: string[];
  related: RelatedRef[];
  supersedes: string[];
  date: string;
}

export interface RelatedRef {
  target: string;
  heading?: string;
  alias?: string;
}

// Control characters other than tab / newline; `]]`, `[[` and newlines would break a WikiLink.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export function normalizeInput(input: FlushInput, now?: Date): NormalizedInput {
  if (!input || typeof input !== 'object') throw new K0Error('INVALID_ARGUMENT', 'flush input must be an object');
  if (typeof input.title !== 'string') throw new K0Error('INVALID_ARGUMENT', 'title must be a string');
  const title = input.title.replace(/[\r\n\t]+/g, ' ').replace(CONTROL, '').trim();
  if (!title) throw new K0Error('INVALID_ARGUMENT', 'title must not be empty');
  if (title.length > MAX_TITLE_CHARS) throw new K0Error('INVALID_ARGUMENT', `title is longer than ${MAX_TITLE_CHARS} characters`);
  if (typeof input.content !== 'string') throw new K0Error('INVALID_ARGUMENT', 'content must be a string');
  const bytes = Buffer.byteLength(input.content, 'utf8');
  if (bytes > MAX_CONTENT_BYTES) {
    throw new K0Error('FILE_TOO_LARGE', `content is ${bytes} bytes; the limit for a note is ${MAX_CONTENT_BYTES} bytes`, {
      bytes,
      limit: MAX_CONTENT_BYTES,
    });
  }
  const content = input.content.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const fm = parseFrontmatter(content);
  const contentFrontmatter = fm.error ? {} : fm.data;
  const body = (fm.error ? content : fm.body).replace(/^\n+/, '').replace(/\s+$/, '');

  const summary = optString(input.summary, 'summary')?.replace(/\s*\n\s*/g, ' ').trim() || undefined;
  const tags = [...new Set(list(input.tags, 'tags').map(cleanTag).filter(Boolean))];
  const related = list(input.related_notes, 'related_notes').map(parseRelated);
  const supersedes = [...new Set(list(input.supersedes, 'supersedes').map((s) => s.trim()).filter(Boolean))];
  for (const s of supersedes) checkRefChars(s, 'supersedes');
  return {
    title,
    body,
    contentFrontmatter,
    summary,
    category: normalizeCategory(optString(input.category, 'category')),
    tags,
    related,
    supersedes,
    date: isoDate(optString(input.date, 'date') ?? now),
  };
}

function optString(v: unknown, name: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new K0Error('INVALID_ARGUMENT', `${name} must be a string`);
  return v;
}

function list(v: unknown, name: string): string[] {
  if (v === undefined || v === null) return [];
  const arr = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(arr) || arr.some((x) => typeof x !== 'string')) throw new K0Error('INVALID_ARGUMENT', `${name} must be a list of strings`);
  if (arr.length > MAX_LIST) throw new K0Error('INVALID_ARGUMENT', `${name} has more than ${MAX_LIST} entries`);
  return arr as string[];
}

function cleanTag(t: string): string {
  return t.replace(CONTROL, '').replace(/^#+/, '').trim().replace(/\s+/g, '-');
}

function checkRefChars(ref: string, field: string): void {
  const inner = cleanRefKeepAnchors(ref);
  if (/[\r\n]/.test(ref) || CONTROL.test(ref) || /[[\]]/.test(inner)) {
    throw new K0Error('INVALID_ARGUMENT', `${field}: ${JSON.stringify(ref)} contains "[", "]", a newline or a control character`);
  }
}

/** Strips one `[[…]]` wrapper but keeps `#heading|alias`. */
function cleanRefKeepAnchors(raw: string): string {
  const s = raw.trim();
  const m = /^!?\[\[(.*)\]\]$/s.exec(s);
  return m ? m[1] : s;
}

/**
 * Related notes are rejected rather than "repaired" when they contain `[`, `]`, newlines or control characters:
 * silently rewriting a link an agent asked for would point it somewhere else.
 */
function parseRelated(raw: string): RelatedRef {
  checkRefChars(raw, 'related_notes');
  const inner = cleanRefKeepAnchors(raw);
  const target = cleanRef(raw);
  if (!target) throw new K0Error('INVALID_ARGUMENT', `related_notes: ${JSON.stringify(raw)} names no note`);
  const alias = /\|(.*)$/s.exec(inner)?.[1]?.trim() || undefined;
  const heading = /#([^|]*)/.exec(inner)?.[1]?.trim() || undefined;
  return { target, heading, alias };
}

export function wikiLink(target: string, heading?: string, alias?: string): string {
  return `[[${target}${heading ? `#${heading}` : ''}${alias ? `|${alias}` : ''}]]`;
}

/** Decisions are accepted when recorded; everything else is simply active. */
export function defaultStatus(category: string): string {
  return category === 'decision' ? 'accepted' : 'active';
}

/** The new note's bytes: YAML frontmatter, an H1 (unless the content brings one), the body, a Related section. */
export function renderNote(n: NormalizedInput, links: { related: string[]; supersedes: string[] }): string {
  const cfm = n.contentFrontmatter;
  const contentTags = Array.isArray(cfm.tags) ? cfm.tags.filter((t): t is string => typeof t === 'string').map(cleanTag) : [];
  const data: Record<string, unknown> = {
    title: n.title,
    date: n.date,
    category: n.category,
    status: typeof cfm.status === 'string' && cfm.status.trim() ? cfm.status.trim() : defaultStatus(n.category),
  };
  const tags = [...new Set([...n.tags, ...contentTags])];
  if (tags.length) data.tags = tags;
  if (n.summary) data.summary = n.summary;
  if (links.supersedes.length) data.supersedes = links.supersedes;
  for (const [k, v] of Object.entries(cfm)) if (!(k in data)) data[k] = v;

  const parts = [`---\n${stringify(data, { lineWidth: 0 }).replace(/\n$/, '')}\n---\n`];
  if (!/^#\s/.test(n.body)) parts.push(`# ${n.title}\n`);
  if (n.body) parts.push(`${n.body}\n`);
  if (links.related.length) parts.push(`## Related\n\n${links.related.map((l) => `- ${l}`).join('\n')}\n`);
  return parts.join('\n');
}
