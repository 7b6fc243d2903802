/**
 * The search debugger: a query, a mode and a fusion preset in; for each hit the channel figures that explain
 * its rank (BM25 rank and score, vector rank and cosine, the fused score, the graph boost) out. Clicking a title
 * opens the note: the editor in VS Code, the rendered note beside the hits in the browser.
 */
import { FUSION_PRESETS, RECALL_MODES, type SearchHit, type SearchResult } from '../../src/shared/protocol';
import { errorLine, h, replace } from '../dom';
import type { View } from '../main';
import type { ConsoleClient } from '../transport';
import { showNote } from './note';

const LIMIT = 20;

export function createSearchView(client: ConsoleClient, inEditor: boolean): View {
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
    try {
      const result = await client.request('search', {
        query, mode: mode.value as SearchResult['mode'], fusion: fusion.value as (typeof FUSION_PRESETS)[number], limit: LIMIT,
      });
      if (mine !== generation) return;
      renderStatus(status, result);
      replace(hits, ...result.hits.map((hit) => renderHit(hit, open)));
      if (!result.hits.length) replace(hits, h('li', { class: 'muted' }, 'No hits.'));
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

function renderStatus(status: HTMLElement, r: SearchResult): void {
  replace(status,
    h('span', { class: 'figure', 'data-value': r.tookMs, testid: 'search-took' }, `${Math.round(r.tookMs)} ms`),
    h('span', { class: 'chip', 'data-value': r.effectiveMode, testid: 'search-effective-mode' },
      r.effectiveMode === r.mode ? r.effectiveMode : `${r.effectiveMode} (asked ${r.mode})`),
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
  const boost = hit.boost && hit.boost > 0
    ? h('span', { class: 'badge boost', testid: 'graph-boost', 'data-value': hit.boost }, `+${hit.boost.toFixed(2)} Graph Boost`)
    : null;
  const superseded = hit.superseded ? h('span', { class: 'badge superseded', testid: 'superseded' }, 'Superseded') : null;
  return h('li', { class: `hit${hit.superseded ? ' is-superseded' : ''}`, testid: 'hit', 'data-path': hit.path },
    h('div', { class: 'hit-head' }, title, boost, superseded, h('span', { class: 'tier' }, hit.tier)),
    h('div', { class: 'hit-where muted' }, hit.path, hit.heading ? ` › ${hit.heading}` : '', hit.line ? `:${hit.line}` : ''),
    h('div', { class: 'channels' }, bm25, vector, fused),
    h('p', { class: 'hit-snippet', testid: 'hit-snippet' }, hit.snippet));
}
