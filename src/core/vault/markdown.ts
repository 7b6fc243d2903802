import MarkdownIt from 'markdown-it';
import { parseFrontmatter, type FrontmatterResult } from './frontmatter';
import { resolveNoteHref, safeDecode } from '../../shared/notePaths';

/** A `[[target#heading|alias]]` or `![[embed]]` occurrence in a note body. */
export interface WikiLink {
  /** As written for `[[…]]`; for a Markdown link `[x](../a/b.md)`, the vault-relative path it points to. */
  target: string;
  /** `markdown` for `[text](note.md)` links to other notes (many real vaults and ADR repos use only these). */
  kind?: 'wiki' | 'markdown';
  heading?: string;
  alias?: string;
  embed: boolean;
  /** 1-based line in the whole file. */
  line: number;
}

export interface Heading {
  level: number;
  text: string;
  /** 1-based line in the whole file. */
  line: number;
}

/** A run of prose or code under one heading path, in document order: the unit chunking works on. */
export interface TextBlock {
  headingPath: string[];
  text: string;
  kind: 'paragraph' | 'list' | 'code' | 'heading' | 'table' | 'quote';
  /** 1-based first and last line in the whole file. */
  line: number;
  endLine: number;
  /** Fence info string for code blocks (e.g. `ts`). */
  info?: string;
}

export interface ParsedNote {
  frontmatter: Record<string, unknown>;
  /** Set when the YAML block is invalid: the block is then indexed as body text. */
  frontmatterError?: { line: number; message: string };
  title: string;
  headings: Heading[];
  links: WikiLink[];
  tags: string[];
  blocks: TextBlock[];
  /** Body lines (after frontmatter), for section-level consumers like the guard. */
  bodyStartLine: number;
  lines: string[];
}

// Block structure only: inline parsing is most of markdown-it's cost and we need just WikiLinks and tags from
// inline text, which a scan of the raw inline source (code spans masked) finds the same way.
const md = new MarkdownIt({ html: true, linkify: false });
md.core.ruler.disable(['inline', 'linkify', 'replacements', 'smartquotes', 'text_join']);
type Token = ReturnType<typeof md.parse>[number];

// markdown-it's published build creates every token field with Object.defineProperty (transpiled class fields),
// which was a sixth of the parse time on a cold index. Tokens here get the same fields with plain assignments, in
// the same order, on markdown-it's own Token prototype (so its methods and `instanceof` are unchanged); the block
// state's push keeps markdown-it's level bookkeeping.
const TokenClass = new md.core.State('', md, {}).Token;
interface LeanToken extends Token {}
// eslint-disable-next-line @typescript-eslint/no-extraneous-class
class LeanToken {
  constructor(type: string, tag: string, nesting: Token['nesting']) {
    this.map = null;
    this.level = 0;
    this.children = null;
    this.content = '';
    this.markup = '';
    this.info = '';
    this.block = false;
    this.hidden = false;
    this.type = type;
    this.tag = tag;
    this.attrs = null;
    this.nesting = nesting;
    this.meta = null;
  }
}
Object.setPrototypeOf(LeanToken.prototype, TokenClass.prototype);
const BlockState = md.block.State;
class LeanBlockState extends BlockState {
  override push(type: string, tag: string, nesting: Token['nesting']): Token {
    const token = new LeanToken(type, tag, nesting);
    token.block = true;
    if (nesting < 0) this.level--;
    token.level = this.level;
    if (nesting > 0) this.level++;
    this.tokens.push(token);
    return token;
  }
}
md.block.State = LeanBlockState;

const WIKILINK = /(!?)\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]/g;
/** `[text](path/to/note.md#heading "title")` — only links to Markdown files count as note links. */
const MDLINK = /(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]+\.(?:md|markdown))(?:#([^)\s>]*))?>?(?:\s+"[^"]*")?\s*\)/gi;
const INLINE_TAG = /(?:^|[\s(])#([\p{L}_][\p{L}\p{N}_/-]*)/gu;

/** Strips a UTF-8 BOM and normalises CRLF / CR so every consumer sees `\n` lines. */
export function normalizeText(raw: string): string {
  // The checks first: a regex replace walks the whole note even when there is nothing to replace.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

export function parseNote(raw: string, relPath: string): ParsedNote {
  const text = normalizeText(raw);
  const fm: FrontmatterResult = parseFrontmatter(text);
  const bodyOffset = fm.bodyStartLine - 1; // lines consumed by a valid frontmatter block
  const body = fm.body;
  const tokens = md.parse(body, {});

  const headings: Heading[] = [];
  const links: WikiLink[] = [];
  const tags = new Set<string>();
  const blocks: TextBlock[] = [];
  const path: string[] = [];

  for (const t of normaliseFrontmatterTags(fm.data.tags)) tags.add(t);

  const bodyLines = body.split('\n');
  // Block text is the raw Markdown source of the block: exact symbols (`Option<&mut T>`, `**/*.go`, `\(`) survive,
  // which rendered inline text would mangle.
  const sourceOf = (map: [number, number] | null) => (map ? bodyLines.slice(map[0], map[1]).join('\n').trim() : '');

  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    const startLine = tok.map ? tok.map[0] + 1 + bodyOffset : 0;
    const endLine = tok.map ? tok.map[1] + bodyOffset : 0;
    if (tok.type === 'heading_open') {
      const inline = tokens[i + 1];
      const level = Number(tok.tag.slice(1));
      const headingText = inlineText(inline).trim();
      headings.push({ level, text: headingText, line: startLine });
      path.length = Math.min(path.length, level - 1);
      while (path.length < level - 1) path.push('');
      path.push(headingText);
      collectInline(inline, startLine, links, tags, relPath);
      blocks.push({ headingPath: [...path], text: headingText, kind: 'heading', line: startLine, endLine: startLine });
      i += 2;
      continue;
    }
    if (tok.type === 'inline') {
      collectInline(tok, startLine, links, tags, relPath);
      continue;
    }
    if (tok.level !== 0) continue;
    if (tok.type === 'fence' || tok.type === 'code_block') {
      blocks.push({ headingPath: [...path], text: tok.content.replace(/\n$/, ''), kind: 'code', line: startLine, endLine, info: tok.info.trim() || undefined });
      continue;
    }
    const kind: TextBlock['kind'] | undefined =
      tok.type === 'paragraph_open' ? 'paragraph'
      : tok.type === 'bullet_list_open' || tok.type === 'ordered_list_open' ? 'list'
      : tok.type === 'blockquote_open' ? 'quote'
      : tok.type === 'table_open' ? 'table'
      : tok.type === 'html_block' ? 'paragraph'
      : undefined;
    if (!kind) continue;
    const text = sourceOf(tok.map as [number, number] | null);
    if (text) blocks.push({ headingPath: [...path], text, kind, line: startLine, endLine });
  }

  const fmTitle = typeof fm.data.title === 'string' && fm.data.title.trim() ? fm.data.title.trim() : undefined;
  const h1 = headings.find((h) => h.level === 1)?.text;
  const fileTitle = relPath.split('/').pop()!.replace(/\.md$/i, '');
  return {
    frontmatter: fm.data,
    frontmatterError: fm.error,
    title: fmTitle ?? h1 ?? fileTitle,
    headings,
    links,
    tags: [...tags],
    blocks,
    bodyStartLine: fm.bodyStartLine,
    lines: bodyLines,
  };
}

/** Heading text without emphasis and code markup. */
function inlineText(tok: Token | undefined): string {
  return (tok?.content ?? '').replace(/(`+)([^`]*?)\1/g, '$2').replace(/(\*\*|__|\*|_)(\S[^*_]*?)\1/g, '$2');
}

/** Replaces code spans with spaces (same length, newlines kept): links and tags in code are examples. */
function maskCodeSpans(src: string): string {
  return src.replace(/(`+)[\s\S]*?\1/g, (m) => m.replace(/[^\n]/g, ' '));
}

function collectInline(tok: Token | undefined, line: number, links: WikiLink[], tags: Set<string>, relPath: string): void {
  const src = tok?.content;
  if (!src || (!src.includes('[') && !src.includes('#'))) return;
  maskCodeSpans(src)
    .split('\n')
    .forEach((part, k) => {
      if (part.includes('[[')) {
        for (const m of part.matchAll(WIKILINK)) {
          const target = m[2].trim();
          if (!target && !m[3]) continue;
          links.push({ target, heading: m[3]?.trim() || undefined, alias: m[4]?.trim() || undefined, embed: m[1] === '!', line: line + k });
        }
      }
      if (part.includes('](')) {
        for (const m of part.matchAll(MDLINK)) {
          const target = resolveNoteHref(relPath, m[3]);
          if (target) links.push({ target, kind: 'markdown', heading: m[4] ? safeDecode(m[4]) : undefined, alias: m[2] || undefined, embed: m[1] === '!', line: line + k });
        }
      }
      if (part.includes('#')) for (const m of part.matchAll(INLINE_TAG)) tags.add(m[1].toLowerCase());
    });
}

function normaliseFrontmatterTags(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(/[,\s]+/) : [];
  return list
    .filter((x): x is string | number => typeof x === 'string' || typeof x === 'number')
    .map((x) => String(x).replace(/^#/, '').trim().toLowerCase())
    .filter(Boolean);
}
