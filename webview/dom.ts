/**
 * Tiny DOM helpers. Every string from the host reaches the page through textContent or setAttribute here, so
 * nothing the vault contains can become markup; the only innerHTML writes in the console are DOMPurify's output
 * (views/note.ts) and Mermaid's SVG (views/offloads.ts).
 */
export { formatInt, formatUsd } from '../src/shared/format';

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    // `testid` is short for data-testid: the console's DOM contract is written in test ids.
    el.setAttribute(k === 'testid' ? 'data-testid' : k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

/** A view's own error line (the core refused a request): shown where the user looked, not in the host banner. */
export function errorLine(message: string): HTMLElement {
  return h('p', { class: 'view-error', role: 'alert', testid: 'view-error' }, message);
}
