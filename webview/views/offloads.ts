/**
 * The offload viewer: the nodes the ledger knows; for the selected one its Mermaid summary rendered to SVG, the
 * summary text the agent received, one button per distinct error that jumps to (and steps through) its ranges, and the raw log paged through readLog
 * (never more than one page of lines in the DOM).
 */
import { MAX_LOG_RANGE, type OffloadDetail, type OffloadNode } from '../../src/shared/protocol';
import { formatTokenChange } from '../../src/shared/format';
import { errorLine, formatInt, h, replace } from '../dom';
import type { View } from '../main';
import type { ConsoleClient } from '../transport';
import { renderMermaid } from './mermaid';
import { groupRanges, type RangeGroup } from './rangeGroups';

const PAGE_LINES = Math.min(200, MAX_LOG_RANGE);
const LIST_LIMIT = 200;

export function createOffloadsView(client: ConsoleClient): View {
  const list = h('ul', { class: 'node-list', testid: 'offload-list' });
  const detail = h('section', { class: 'offload-detail', testid: 'offload-detail' }, h('p', { class: 'muted' }, 'Select an offloaded log.'));
  const element = h('section', { class: 'view offloads-view', testid: 'view-offloads' }, h('div', { class: 'split' }, list, detail));
  let selected: string | undefined;
  let listGeneration = 0;
  let detailGeneration = 0;
  // VS Code switches the theme by changing <body>'s classes (and the --vscode-* variables): redraw the shown
  // diagram in the new colours.
  let repaint: (() => void) | undefined;
  new MutationObserver(() => repaint?.()).observe(document.body, { attributes: true, attributeFilter: ['class'] });

  const loadList = async () => {
    const mine = ++listGeneration;
    try {
      const { nodes, total } = await client.request('listOffloads', { limit: LIST_LIMIT });
      if (mine !== listGeneration) return;
      replace(list, ...nodes.map((n) => renderNode(n, n.nodeId === selected, () => void select(n.nodeId))));
      if (!nodes.length) replace(list, h('li', { class: 'muted' }, 'No offloaded logs yet: pipe a long log into `k0maru offload`.'));
      else if (total > nodes.length) list.appendChild(h('li', { class: 'muted' }, `${total - nodes.length} older nodes not listed`));
    } catch (e) {
      if (mine === listGeneration) replace(list, errorLine(e instanceof Error ? e.message : String(e)));
    }
  };

  const select = async (nodeId: string) => {
    selected = nodeId;
    for (const li of Array.from(list.querySelectorAll<HTMLElement>('[data-testid=offload-node]'))) {
      li.setAttribute('aria-selected', String(li.dataset.nodeId === nodeId));
    }
    const mine = ++detailGeneration;
    replace(detail, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const d = await client.request('getOffload', { nodeId });
      if (mine !== detailGeneration) return;
      await renderDetail(client, detail, d, () => mine === detailGeneration, (paint) => (repaint = paint));
    } catch (e) {
      if (mine === detailGeneration) replace(detail, errorLine(e instanceof Error ? e.message : String(e)));
    }
  };

  return {
    element,
    refresh(reason) {
      if (reason === 'vaultChanged') return; // offloads live in refs/, which the ledger event covers
      void loadList();
    },
  };
}

function renderNode(n: OffloadNode, selected: boolean, onSelect: () => void): HTMLElement {
  const button = h('button', { type: 'button', class: 'node-button' },
    h('span', { class: 'node-task' }, n.task),
    h('span', { class: 'muted' }, `${n.nodeId} · ${formatInt(n.lines)} lines · ${new Date(n.ts).toISOString().slice(0, 16).replace('T', ' ')}`),
    h('span', { class: 'node-saved' }, formatTokenChange(n.tokensBefore, n.tokensAfter, n.reduction)),
    n.available ? null : h('span', { class: 'warning' }, 'raw log not on disk'));
  button.addEventListener('click', onSelect);
  return h('li', { testid: 'offload-node', 'data-node-id': n.nodeId, 'aria-selected': String(selected) }, button);
}

async function renderDetail(client: ConsoleClient, target: HTMLElement, d: OffloadDetail, current: () => boolean,
  onRepaint: (paint: () => void) => void): Promise<void> {
  const diagram = h('div', { class: 'diagram', testid: 'offload-diagram' }, h('p', { class: 'muted' }, 'Rendering diagram…'));
  const lines = h('ol', { class: 'log-lines', testid: 'log-lines' });
  const pager = h('div', { class: 'pager' });
  // One button per distinct error; a button for an error seen in several places steps through them.
  const ranges = h('div', { class: 'ranges' }, ...groupRanges(d.ranges).map((g) => rangeButton(g, (place) => void showPage(Math.max(1, place.from - 5), place))));
  replace(target,
    h('header', { class: 'offload-header' }, h('h2', {}, d.node.task), h('code', { class: 'muted' }, d.node.nodeId),
      h('span', { class: 'muted' }, `${formatInt(d.totalLines)} lines · source ${d.node.source}`)),
    diagram,
    h('h3', {}, 'Summary'), h('pre', { class: 'summary', testid: 'offload-summary' }, d.summary),
    h('h3', {}, 'Raw log'), d.ranges.length ? ranges : h('p', { class: 'muted' }, 'No error ranges found.'), pager, lines);

  const marked = (n: number) => d.ranges.some((r) => n >= r.from && n <= r.to);
  const showPage = async (from: number, place?: Place) => {
    if (!d.node.available || d.totalLines === 0) {
      replace(lines, h('li', { class: 'muted' }, d.node.available ? 'The log is empty.' : 'The raw log is not on disk in this clone.'));
      return;
    }
    const to = Math.min(d.totalLines, from + PAGE_LINES - 1);
    try {
      const page = await client.request('readLog', { nodeId: d.node.nodeId, from, to });
      if (!current()) return;
      replace(lines, ...page.lines.map((text, i) => {
        const n = page.from + i;
        const cls = `log-line${marked(n) ? ' marked' : ''}${place && n >= place.from && n <= place.to ? ' current' : ''}`;
        return h('li', { 'data-line': n, class: cls }, h('span', { class: 'gutter' }, n), h('code', {}, text));
      }));
      // Bring the place to the top of the log box only (scrollIntoView would scroll the page under the user too).
      const at = lines.querySelector('.current');
      if (at) lines.scrollTop += at.getBoundingClientRect().top - lines.getBoundingClientRect().top;
      renderPager(pager, page.from, page.to, page.totalLines, showPage);
    } catch (e) {
      if (current()) replace(lines, h('li', {}, errorLine(e instanceof Error ? e.message : String(e))));
    }
  };
  onRepaint(() => void paintDiagram(diagram, d.mermaid, current));
  await Promise.all([showPage(d.ranges[0] ? Math.max(1, d.ranges[0].from - 5) : 1), paintDiagram(diagram, d.mermaid, current)]);
}

type Place = RangeGroup['places'][number];

function where(p: Place): string {
  return p.from === p.to ? `line ${p.from}` : `lines ${p.from}–${p.to}`;
}

/** A group's button: one place jumps there; several places step through them in log order, one per click. */
function rangeButton(g: RangeGroup, go: (place: Place) => void): HTMLElement {
  const first = g.places[0]!;
  const seen = g.seen > 1 ? ` · seen ${g.seen}×` : '';
  const b = h('button', { type: 'button', class: 'range', testid: 'log-range', 'data-from': first.from, 'data-to': first.to, 'data-places': g.places.length, 'data-seen': g.seen },
    g.places.length === 1 ? `${g.label}${seen} · ${where(first)}` : `${g.label}${seen} · ${g.places.length} places`);
  let next = 0;
  b.addEventListener('click', () => {
    const place = g.places[next]!;
    if (g.places.length > 1) b.textContent = `${g.label}${seen} · place ${next + 1} of ${g.places.length} (${where(place)})`;
    b.dataset.from = String(place.from);
    b.dataset.to = String(place.to);
    next = (next + 1) % g.places.length;
    go(place);
  });
  return b;
}

function renderPager(pager: HTMLElement, from: number, to: number, total: number, go: (from: number) => void): void {
  const prev = h('button', { type: 'button', testid: 'log-prev', disabled: from <= 1 }, '◀ Earlier');
  const next = h('button', { type: 'button', testid: 'log-next', disabled: to >= total }, 'Later ▶');
  prev.addEventListener('click', () => go(Math.max(1, from - PAGE_LINES)));
  next.addEventListener('click', () => go(to + 1));
  replace(pager, prev, h('span', { class: 'muted', testid: 'log-window' }, `lines ${from}–${to} of ${formatInt(total)}`), next);
}

async function paintDiagram(target: HTMLElement, source: string, current: () => boolean): Promise<void> {
  if (!source.trim()) {
    replace(target, h('p', { class: 'muted' }, 'No diagram for this node.'));
    return;
  }
  try {
    const svg = await renderMermaid(source, target);
    if (current()) target.innerHTML = svg; // mermaid's own SVG (securityLevel strict): the sanctioned innerHTML here
  } catch (e) {
    if (current()) replace(target, errorLine(`The diagram could not be drawn: ${e instanceof Error ? e.message : String(e)}`), h('pre', {}, source));
  }
}
