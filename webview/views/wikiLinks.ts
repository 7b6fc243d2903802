/**
 * `[[WikiLinks]]` in the browser's note view: a markdown-it inline rule that turns each link the host resolved
 * into an in-page link carrying the note's path (`a[data-note]`), and leaves unresolved ones as marked text.
 * The targets come with the note (OpenNoteResult.links), resolved by the index the way Obsidian resolves them.
 */
import type MarkdownIt from 'markdown-it';
import { resolveNoteHref, safeDecode } from '../../src/shared/notePaths';

type Md = InstanceType<typeof MarkdownIt>;

export interface NoteLinkEnv {
  /** Lower-cased target as written (no heading, no alias) → vault-relative note path. */
  noteLinks: Map<string, string>;
  [key: string | symbol]: unknown;
}

export function wikiLinks(md: Md): void {
  md.inline.ruler.before('link', 'wikilink', (state, silent) => {
    const src = state.src;
    const start = state.pos;
    if (src.charCodeAt(start) !== 0x5b /* [ */ || src.charCodeAt(start + 1) !== 0x5b) return false;
    const end = src.indexOf(']]', start + 2);
    if (end < 0) return false;
    const inner = src.slice(start + 2, end);
    if (!inner.trim() || /[\n[\]]/.test(inner)) return false;
    if (!silent) {
      const bar = inner.indexOf('|');
      const written = bar >= 0 ? inner.slice(0, bar) : inner;
      const label = (bar >= 0 ? inner.slice(bar + 1) : inner).trim() || written.trim();
      const target = written.split('#')[0]!.trim().toLowerCase();
      const path = (state.env as Partial<NoteLinkEnv>).noteLinks?.get(target);
      const open = path ? state.push('link_open', 'a', 1) : state.push('wikilink_open', 'span', 1);
      if (path) open.attrs = [['href', '#note'], ['data-note', path], ['class', 'wikilink'], ['title', path]];
      else open.attrs = [['class', 'wikilink unresolved'], ['title', 'no note by this name']];
      state.push('text', '', 0).content = label;
      state.push(path ? 'link_close' : 'wikilink_close', path ? 'a' : 'span', -1);
    }
    state.pos = end + 2;
    return true;
  });
}

/** A Markdown link to another note (`[x](../adr/0002.md)`), resolved as the indexer resolves it; undefined otherwise. */
export function noteLinkPath(href: string, fromPath: string): string | undefined {
  const file = href.split('#')[0]!;
  return /\.md$/i.test(safeDecode(file)) ? resolveNoteHref(fromPath, file) : undefined;
}
