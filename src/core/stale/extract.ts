import MarkdownIt from 'markdown-it';
import { posix } from 'node:path';
import { normalizeText, type ParsedNote } from '../vault/markdown';
import { parseFrontmatter } from '../vault/frontmatter';
import { parseAnchorRef, type AnchorRef } from './anchorSyntax';

/**
 * What a note names of the repository, read from markdown-it tokens: inline code spans and link targets of the
 * body, and the frontmatter's `anchors:` list. Code blocks are examples, not references, and are skipped. The
 * result is a list of candidates; src/core/stale/resolve.ts keeps those the repository confirms.
 */

export interface AnchorCandidate {
  ref: AnchorRef;
  /** As written (`src/a.ts:42`), for reasons. */
  text: string;
  source: 'text' | 'frontmatter';
  noteLine: number;
}

/** Inline parsing on: the scanner's parser skips it for speed, and this runs only for notes whose bytes changed. */
const md = new MarkdownIt({ html: false, linkify: false });
type Token = ReturnType<typeof md.parse>[number];

/** Reading stops here: a note naming 10,000 paths costs no more than one naming a few hundred candidates. */
export const MAX_CANDIDATES = 2_000;

export interface Extraction {
  candidates: AnchorCandidate[];
  /** More candidates than MAX_CANDIDATES were written. */
  truncated: boolean;
}

/** What extraction reads of a note. */
export type NoteText = Pick<ParsedNote, 'frontmatter' | 'lines' | 'bodyStartLine'>;

/**
 * A note's frontmatter and body, without the block parse parseNote adds for the index (the scan already did that
 * one; on a first scan this parse was a third of the staleness update).
 */
export function noteText(raw: string): NoteText {
  const fm = parseFrontmatter(normalizeText(raw));
  return { frontmatter: fm.data, lines: fm.body.split('\n'), bodyStartLine: fm.bodyStartLine };
}

/** `repoPath`: the note's path from the repository top (link targets are relative to its folder). */
export function extractCandidates(note: NoteText, repoPath: string | undefined): Extraction {
  const out: AnchorCandidate[] = [];
  let truncated = false;
  const push = (c: AnchorCandidate) => {
    if (out.length >= MAX_CANDIDATES) truncated = true;
    else out.push(c);
  };
  const fromDir = repoPath ? posix.dirname(repoPath) : undefined;

  const listed = note.frontmatter.anchors;
  const entries = Array.isArray(listed) ? listed : typeof listed === 'string' ? [listed] : [];
  for (const e of entries) {
    if (typeof e !== 'string') continue;
    for (const ref of parseAnchorRef(e, { explicit: true })) push({ ref, text: e.trim(), source: 'frontmatter', noteLine: 1 });
  }

  const body = note.lines.join('\n');
  if (!body.includes('`') && !body.includes('](')) return { candidates: out, truncated };
  const offset = note.bodyStartLine - 1;
  for (const tok of md.parse(body, {})) {
    if (tok.type !== 'inline' || !tok.children || !tok.map) continue;
    let line = tok.map[0] + 1 + offset;
    for (const child of tok.children) {
      if (child.type === 'softbreak' || child.type === 'hardbreak') line++;
      else if (child.type === 'code_inline') {
        for (const ref of parseAnchorRef(child.content)) push({ ref, text: child.content.trim(), source: 'text', noteLine: line });
      } else if (child.type === 'link_open') {
        const href = linkHref(child);
        if (href) for (const ref of parseAnchorRef(href, { link: true, fromDir })) push({ ref, text: href, source: 'text', noteLine: line });
      } else if (child.type === 'text' && child.content.includes('\n')) line += child.content.split('\n').length - 1;
      if (truncated) break;
    }
    if (truncated) break;
  }
  return { candidates: out, truncated };
}

function linkHref(tok: Token): string | undefined {
  const raw = tok.attrGet('href');
  const href = raw == null ? '' : String(raw);
  if (!href || href.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  return href;
}
