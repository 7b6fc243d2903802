/**
 * The browser's note view: the host returns a note's raw Markdown; the page renders it with markdown-it (raw
 * HTML off) and sanitises the result with DOMPurify before it touches the DOM. Remote images and links would
 * reach the network (and break the CSP), so images become their alt text and links to other sites are inert.
 */
import MarkdownIt from 'markdown-it';
import DOMPurify from 'dompurify';
import type { OpenNoteResult } from '../../src/shared/protocol';
import { h, replace } from '../dom';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

let hooksInstalled = false;
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      // In-page anchors stay; everything else is shown, not followed (the page talks to its own server only).
      if (!href.startsWith('#')) {
        node.setAttribute('data-href', href);
        node.removeAttribute('href');
        node.setAttribute('title', href);
      }
    }
  });
}

export function renderMarkdown(markdown: string): string {
  installHooks();
  const html = md.render(markdown);
  return DOMPurify.sanitize(html, { FORBID_TAGS: ['img', 'style', 'form', 'input'], USE_PROFILES: { html: true } });
}

/** Fills the note view with what openNote answered. */
export function showNote(target: HTMLElement, result: OpenNoteResult): void {
  if (result.shown === 'editor') {
    replace(target, h('p', { class: 'muted' }, `Opened ${result.path} in the editor.`));
    return;
  }
  const { frontmatter, body } = splitFrontmatter(result.markdown);
  const article = h('article', { class: 'markdown' });
  article.innerHTML = renderMarkdown(body); // DOMPurify output: the one sanctioned innerHTML here
  replace(target,
    h('header', { class: 'note-header' }, h('h2', { testid: 'note-title' }, result.title), h('code', { class: 'muted' }, result.path)),
    frontmatter ? h('pre', { class: 'frontmatter', testid: 'note-frontmatter' }, frontmatter) : null,
    result.truncated ? h('p', { class: 'warning' }, 'The note is long: only its beginning is shown.') : null,
    article);
}

/** YAML frontmatter is metadata, not prose: markdown-it would render it as a rule and a heading. */
export function splitFrontmatter(markdown: string): { frontmatter?: string; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown);
  return m ? { frontmatter: m[1], body: markdown.slice(m[0].length) } : { body: markdown };
}
