/**
 * The search debugger: a query, a mode and a fusion preset in; for each hit the channel figures that explain
 * its rank (BM25 rank and score, vector rank and cosine, the fused score, the graph boost) and whether the note
 * is stale (its anchored code changed since) out. Clicking a title opens the note: the editor in VS Code, the
 * rendered note beside the hits in the browser. The time shown is the time the person waited, measured here.
 */
import { FUSION_PRESETS, RECALL_MODES, type SearchHit, type SearchResult, type StaleMark } from '../../src/shared/protocol';
import { errorLine, h, replace } from '../dom';
import type { View } from '../main';
import type { ConsoleClient } from '../transport';
import { showNote } from './note';

const LIMIT = 20;

/** `afterSearch`: told after each answer was drawn (a hybrid search may have started a background fill). */
export function createSearchView(client: ConsoleClient, inEditor: boolean, afterSearch?: () => void): View {
  const input = h('input', {
    type: 'search', testid: 'search-input', placeholder: 'Search the vault…', 'aria-label': 'Query', autocomplete: 'off', spellcheck: 'false',
  });
  const mode = h('select', { testid: 'search-mode', 'aria-label': 'Mode' }, ...RECALL_MODES.map((m) => h('option', { value: m }, m)));
  const fusion = h('select', { testid: 'search-fusion', 'aria-label': 'Fusion' }, ...FUSION_PRESETS.map((f) => h('option', { value: f }, f)));
  const form = h('form', { class: 'search-form', role: 'search' }, input, mode, fusion, h('button', { type: 'submit', class: 'primary' }, 'Search'));
  const status = h('div', { class: 'status', testid: 'search-status', 'aria-live': 'polite' });
  const hits = h('ol', { class: 'hits', testid: 'hits' });
  const note = h('section', { class: 'note-view', testid: 'note-view', 'aria-label': 'Note' },
    h('p', { class: 'muted' }, 'Click a title to read the note.'));
  const element = h('section', { class: 'view search-view', testid: 'view-search' },
    form, status, h('div', { class: 'split' }, hits, note));

  // Only the newest search may paint: a slow answer to an older query must not overwrite a newer one.
  let generation = 0;
  const run = async () => {
    const query = input.value.trim();
    if (!query) {
      replace(status, 'Type a query.');
      return;
    }
    const mine = ++generation;
    replace(status, 'Searching…');
    // From the request leaving the page to its answer drawn: the scan, the model, the transport and the drawing
    // are all time the person waited, not only the core's recall (tookMs).
    const sent = performance.now();
    try {
      const result = await client.request('search', {
        query, mode: mode.value as SearchResult['mode'], fusion: fusion.value as (typeof FUSION_PRESETS)[number], limit: LIMIT,
      });
      if (mine !== generation) return;
      replace(hits, ...result.hits.map((hit) => renderHit(hit, open)));
      // The relevance floor leaves a query that matches nothing without hits: say so in words.
      if (!result.hits.length) replace(hits, h('li', { class: 'muted no-hits', testid: 'no-hits' }, 'No matching notes.'));
      // The hits are in the document; the figure is drawn in the same frame as they are.
      renderStatus(status, result, performance.now() - sent);
      afterSearch?.();
    } catch (e) {
      if (mine !== generation) return;
      replace(status, errorLine(e instanceof Error ? e.message : String(e)));
    }
  };
  const open = (hit: SearchHit) => openPath(hit.path, hit.line >= 1 ? hit.line : undefined);
  const openPath = async (path: string, line?: number) => {
    try {
      const result = await client.request('openNote', { path, line });
      showNote(note, result, (linked) => void openPath(linked));
      if (result.shown === 'page') revealNote();
    } catch (e) {
      replace(note, errorLine(e instanceof Error ? e.message : String(e)));
    }
  };
  // The note starts at its top, and the page moves only when the note's top is out of sight (one column: the
  // note sits below the hits) — then only as far as just under the search box, which stays on screen (sticky).
  const revealNote = () => {
    note.scrollTop = 0;
    const below = form.getBoundingClientRect().bottom + 8;
    const top = note.getBoundingClientRect().top;
    if (top < below || top > window.innerHeight - 48) window.scrollBy({ top: top - below });
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void run();
  });
  // VS Code opens notes in the editor: the pane stays small and only says that it did.
  if (inEditor) note.classList.add('editor-host');

  return {
    element,
    refresh(reason) {
      if (reason === 'show') input.focus();
      // The vault changed: the same query may rank differently now.
      if (reason === 'vaultChanged' && input.value.trim()) void run();
    },
  };
}

/** BM25 scores of a tiny vault are ~1e-6: two decimals would show 0.00 for every hit. */
function figure(n: number): string {
  return n === 0 || Math.abs(n) >= 0.01 ? n.toFixed(2) : n.toExponential(2);
}

/** 351 → "351 ms", 1834 → "1.8 s". */
function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

function renderStatus(status: HTMLElement, r: SearchResult, waitedMs: number): void {
  const why = [`You waited ${duration(waitedMs)} from sending the query to seeing the hits`];
  if (r.hostMs !== undefined) why.push(`the host answered in ${duration(r.hostMs)} (scan, model, embedding within the budget, recall)`);
  why.push(`recall itself took ${duration(r.tookMs)}`);
  const label = r.effectiveModeLabel || r.effectiveMode;
  replace(status,
    h('span', { class: 'figure', 'data-value': waitedMs, 'data-search-ms': r.tookMs, 'data-host-ms': r.hostMs, testid: 'search-took', title: `${why.join('; ')}.` },
      `took ${duration(waitedMs)} (search ${duration(r.tookMs)})`),
    h('span', {
      class: 'chip', 'data-value': r.effectiveMode, 'data-label': label, testid: 'search-effective-mode',
      'data-embedded': r.coverage?.embedded, 'data-passages': r.coverage?.passages,
    }, r.effectiveMode === r.mode ? label : `${label} (asked ${r.mode})`),
    h('span', { class: 'chip', testid: 'search-fusion-label' }, r.fusion),
    `${r.hits.length} hit${r.hits.length === 1 ? '' : 's'}`,
    r.pendingVectors ? h('span', { class: 'warning' }, `${r.pendingVectors} passages not embedded yet`) : null,
    ...r.warnings.map((w) => h('span', { class: 'warning', testid: 'search-warning' }, w)));
}

function renderHit(hit: SearchHit, open: (hit: SearchHit) => void): HTMLElement {
  const title = h('button', { type: 'button', class: 'hit-title link', testid: 'hit-title' }, hit.title || hit.path);
  title.addEventListener('click', () => open(hit));
  const bm25 = hit.bm25
    ? h('span', { class: 'channel', testid: 'hit-bm25', 'data-value': hit.bm25.score, 'data-rank': hit.bm25.rank }, `BM25 #${hit.bm25.rank} · ${figure(hit.bm25.score)}`)
    : h('span', { class: 'channel none', testid: 'hit-bm25' }, 'BM25 —');
  const vector = hit.vector
    ? h('span', { class: 'channel', testid: 'hit-vector', 'data-value': hit.vector.cosine, 'data-rank': hit.vector.rank }, `Vector #${hit.vector.rank} · cos ${hit.vector.cosine.toFixed(3)}`)
    : h('span', { class: 'channel none', testid: 'hit-vector' }, 'Vector —');
  // The fused score before the boost in hybrid; in a single-channel mode the score that ranked the hit.
  const fusedValue = hit.fused ?? hit.score;
  const fused = h('span', { class: 'channel fused', testid: 'hit-fused', 'data-value': fusedValue, 'data-score': hit.score },
    `${hit.fused !== undefined ? 'Fused' : 'Score'} ${fusedValue.toFixed(4)}`,
    hit.score !== fusedValue ? ` → ${hit.score.toFixed(4)}` : '');
  // A stale note ranks lower by a documented factor: the debugger says so, or its score would look unexplained.
  const demoted = hit.staleFactor !== undefined && hit.staleFactor !== 1
    ? h('span', { class: 'channel stale-factor', testid: 'hit-stale-factor', 'data-value': hit.staleFactor }, `stale ×${hit.staleFactor}`)
    : null;
  const boost = hit.boost && hit.boost > 0
    ? h('span', { class: 'badge boost', testid: 'graph-boost', 'data-value': hit.boost }, `+${hit.boost.toFixed(2)} Graph Boost`)
    : null;
  const superseded = hit.superseded ? h('span', { class: 'badge superseded', testid: 'superseded' }, 'Superseded') : null;
  const template = hit.template ? h('span', { class: 'badge superseded', testid: 'template', title: 'a form to fill in, not a decision: demoted ×0.5' }, 'Template') : null;
  const stale = hit.stale
    ? h('span', { class: 'badge stale', testid: 'stale', title: hit.stale.reason, 'data-since': hit.stale.since, 'data-base': hit.stale.base }, 'Stale')
    : null;
  return h('li', { class: `hit${hit.superseded ? ' is-superseded' : ''}${hit.stale ? ' is-stale' : ''}`, testid: 'hit', 'data-path': hit.path },
    h('div', { class: 'hit-head' }, title, boost, superseded, template, stale, h('span', { class: 'tier' }, hit.tier)),
    h('div', { class: 'hit-where muted' }, hit.path, hit.heading ? ` › ${hit.heading}` : '', hit.line ? `:${hit.line}` : ''),
    h('div', { class: 'channels' }, bm25, vector, fused, demoted),
    hit.stale ? renderStale(hit.stale) : null,
    h('p', { class: 'hit-snippet', testid: 'hit-snippet' }, hit.snippet));
}

/** Why the note is stale, folded: the first reason in the summary, every stale anchor's own reason inside. */
function renderStale(s: StaleMark): HTMLElement {
  const more = s.anchors.length > 1
    ? h('ul', { class: 'stale-anchors' }, ...s.anchors.map((a) => h('li', { testid: 'stale-anchor', 'data-path': a.path }, h('code', {}, a.anchor), ` — ${a.reason}`)))
    : null;
  return h('details', { class: 'stale-detail', testid: 'stale-detail' },
    h('summary', {}, 'Stale since ', h('code', { testid: 'stale-since', title: s.base }, s.since)),
    h('p', { class: 'stale-reason', testid: 'stale-reason' }, s.reason),
    more);
}
