/**
 * The browser's note view: the host returns a note's raw Markdown; the page renders it with markdown-it (raw
 * HTML off) and sanitises the result with DOMPurify before it touches the DOM. Remote images and links would
 * reach the network (and break the CSP), so images become their alt text and links to other sites are inert.
 */
import MarkdownIt from 'markdown-it';
import DOMPurify from 'dompurify';
import type { OpenNoteResult } from '../../src/shared/protocol';
import { h, replace } from '../dom';
import { noteLinkPath, wikiLinks, type NoteLinkEnv } from './wikiLinks';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false }).use(wikiLinks);

/** The note being rendered: its path and the paths its links may lead to (read by the sanitiser hook). */
let rendering: { path: string; known: Set<string> } | undefined;

let hooksInstalled = false;
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      // A Markdown link to a note this one links to opens it in the page, like a [[WikiLink]].
      const target = rendering && !href.startsWith('#') ? noteLinkPath(href, rendering.path) : undefined;
      if (target && rendering!.known.has(target)) {
        node.setAttribute('data-note', target);
        node.setAttribute('href', '#note');
        return;
      }
      // In-page anchors stay; everything else is shown, not followed (the page talks to its own server only).
      if (!href.startsWith('#')) {
        node.setAttribute('data-href', href);
        node.removeAttribute('href');
        node.setAttribute('title', href);
      }
    }
  });
}

export function renderMarkdown(markdown: string, note?: { path: string; links: { target: string; path: string }[] }): string {
  installHooks();
  const env: NoteLinkEnv = { noteLinks: new Map((note?.links ?? []).map((l) => [l.target, l.path])) };
  const html = md.render(markdown, env);
  rendering = note && { path: note.path, known: new Set(note.links.map((l) => l.path)) };
  try {
    return DOMPurify.sanitize(html, { FORBID_TAGS: ['img', 'style', 'form', 'input'], USE_PROFILES: { html: true } });
  } finally {
    rendering = undefined;
  }
}

/** Fills the note view with what openNote answered; a click on a link to another note calls `openPath`. */
export function showNote(target: HTMLElement, result: OpenNoteResult, openPath?: (path: string) => void): void {
  if (result.shown === 'editor') {
    replace(target, h('p', { class: 'muted' }, `Opened ${result.path} in the editor.`));
    return;
  }
  const { frontmatter, body } = splitFrontmatter(result.markdown);
  const article = h('article', { class: 'markdown' });
  article.innerHTML = renderMarkdown(body, result); // DOMPurify output: the one sanctioned innerHTML here
  // The header shows the title; a first heading that only repeats it would show it twice.
  const lead = article.firstElementChild;
  if (lead?.tagName === 'H1' && sameText(lead.textContent ?? '', result.title)) lead.remove();
  article.addEventListener('click', (e) => {
    const link = (e.target as Element | null)?.closest?.('a[data-note]');
    if (!link || !openPath) return;
    e.preventDefault();
    openPath(link.getAttribute('data-note')!);
  });
  replace(target,
    h('header', { class: 'note-header' }, h('h2', { testid: 'note-title' }, result.title), h('code', { class: 'muted' }, result.path)),
    frontmatter ? h('pre', { class: 'frontmatter', testid: 'note-frontmatter' }, frontmatter) : null,
    result.truncated ? h('p', { class: 'warning' }, 'The note is long: only its beginning is shown.') : null,
    article);
}

function sameText(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  return norm(a) === norm(b);
}

/** YAML frontmatter is metadata, not prose: markdown-it would render it as a rule and a heading. */
export function splitFrontmatter(markdown: string): { frontmatter?: string; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown);
  return m ? { frontmatter: m[1], body: markdown.slice(m[0].length) } : { body: markdown };
}
