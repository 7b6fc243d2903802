/**
 * What a rendered offload diagram shows, read in the page (the browser e2e and the VS Code console runner share it):
 * each transition label's text, where its glyphs are and the frame the diagram gives it, the state boxes, and every
 * colour painted, next to the page's own palette.
 */
import assert from 'node:assert/strict';

/** The labels of the transitions in a Mermaid state diagram's source (`A --> B: label`). */
export function edgeLabels(mermaid: string): string[] {
  return mermaid.split('\n').map((l) => /^\s*\S+\s+-->\s+\S+\s*:\s*(.+)$/.exec(l)?.[1]?.trim()).filter((l): l is string => !!l);
}

export interface Box { x: number; y: number; w: number; h: number }
export interface DiagramFacts {
  labels: { text: string; ink: Box; frame: Box }[];
  nodes: Box[];
  paints: string[];
  palette: Record<string, string>;
}

// Runs in the page (a string, so no bundler helper leaks into it). For each edge label: its text, the extent of
// the glyphs as laid out (a Range over its text) and the frame the diagram gives it (its foreignObject or its
// background rect) — text outside its frame is clipped or overlaps the neighbours. Paints: the fill and stroke of
// every visible shape. Palette: the page's own colour variables resolved to rgb().
export const DIAGRAM_FACTS = `(() => {
  const svg = document.querySelector('[data-testid=offload-diagram] svg');
  const box = (r) => ({ x: r.x, y: r.y, w: r.width, h: r.height });
  const labels = [];
  for (const l of svg.querySelectorAll('g.edgeLabel')) {
    // SVG text wraps into one tspan per row: a row break is a space.
    const rows = [...l.querySelectorAll('tspan.row')];
    const raw = rows.length ? rows.map((r) => r.textContent).join(' ') : (l.textContent || '');
    const text = raw.replace(/\\s+/g, ' ').trim();
    if (!text) continue;
    const range = document.createRange();
    range.selectNodeContents(l);
    const frameEl = l.querySelector('foreignObject') || l.querySelector('rect') || l;
    labels.push({ text, ink: box(range.getBoundingClientRect()), frame: box(frameEl.getBoundingClientRect()) });
  }
  const nodes = [...svg.querySelectorAll('g.node')].map((n) => box(n.getBoundingClientRect())).filter((b) => b.w > 0);
  const paints = new Set();
  for (const el of svg.querySelectorAll('rect, path, circle, polygon, line, ellipse')) {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden' || el.getBoundingClientRect().width === 0) continue;
    paints.add(cs.fill);
    paints.add(cs.stroke);
  }
  const probe = document.createElement('span');
  document.querySelector('[data-testid=offload-diagram]').appendChild(probe);
  const palette = {};
  for (const v of ['--k-bg', '--k-panel', '--k-raised', '--k-border', '--k-fg', '--k-muted', '--k-accent']) {
    probe.style.color = 'var(' + v + ')';
    palette[v] = getComputedStyle(probe).color;
  }
  probe.remove();
  return { labels, nodes, paints: [...paints], palette };
})()`;

export const inside = (a: Box, b: Box, slack = 1) => a.x >= b.x - slack && a.y >= b.y - slack && a.x + a.w <= b.x + b.w + slack && a.y + a.h <= b.y + b.h + slack;
export const apart = (a: Box, b: Box) => a.x + a.w <= b.x + 0.5 || b.x + b.w <= a.x + 0.5 || a.y + a.h <= b.y + 0.5 || b.y + b.h <= a.y + 0.5;

export function assertReadable(facts: DiagramFacts, mermaid: string): void {
  const expected = edgeLabels(mermaid);
  assert.deepEqual(facts.labels.map((l) => l.text).sort(), [...expected].sort(), 'every transition label is drawn with its whole text');
  for (const l of facts.labels) assert.ok(inside(l.ink, l.frame), `"${l.text}" is drawn outside its frame (clipped): ink ${JSON.stringify(l.ink)} frame ${JSON.stringify(l.frame)}`);
  for (const [i, a] of facts.labels.entries()) {
    for (const b of facts.labels.slice(i + 1)) assert.ok(apart(a.frame, b.frame), `labels "${a.text}" and "${b.text}" overlap`);
    for (const n of facts.nodes) assert.ok(apart(a.frame, n), `label "${a.text}" overlaps a state box ${JSON.stringify(n)}`);
  }
}

export function assertPaintsFrom(facts: DiagramFacts, palette: Record<string, string>): void {
  const allowed = new Set([...Object.values(palette), 'none', 'rgba(0, 0, 0, 0)']);
  const foreign = facts.paints.filter((p) => !allowed.has(p));
  assert.deepEqual(foreign, [], `colours outside the palette ${JSON.stringify(palette)}`);
  assert.ok(facts.paints.includes(palette['--k-accent']!), 'the accent outlines the diagram');
}

