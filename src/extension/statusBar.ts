import * as vscode from 'vscode';
import type { EmbeddingProgress } from '../core/embed/vectorSession';
import { formatInt } from '../shared/format';
import type { IndexState } from './api';

export const SHOW_LOG_COMMAND = 'k0maru.showLog';

/**
 * Text and tooltip for a state; pure so the tests and the status bar item agree on one rendering. While the
 * background fill embeds (and the index is otherwise ready) the item shows its progress, "embedding 3,100 / 12,601",
 * then returns to the note count; a fill that stopped short is said in the tooltip.
 */
export function renderStatus(state: IndexState, embedding?: EmbeddingProgress): { text: string; tooltip: string } {
  const base = renderIndex(state);
  if (state.kind !== 'ready' || !embedding || embedding.embedded >= embedding.passages) return base;
  const figures = `${formatInt(embedding.embedded)} / ${formatInt(embedding.passages)}`;
  const pct = embedding.passages ? Math.floor((embedding.embedded / embedding.passages) * 100) : 0;
  if (embedding.filling) {
    return {
      text: `$(sync~spin) K0maru: embedding ${figures}`,
      tooltip: `K0maru: embedding passages for hybrid recall in the background, ${figures} (${pct} %)\n${base.tooltip}`,
    };
  }
  return { text: base.text, tooltip: `${base.tooltip}\nVectors: ${figures} passages (${pct} %); the background fill stopped, hybrid recall is partial until the next one` };
}

function renderIndex(state: IndexState): { text: string; tooltip: string } {
  switch (state.kind) {
    case 'starting':
      return { text: '$(database) K0maru', tooltip: 'K0maru: starting' };
    case 'no-vault':
      return { text: '$(database) K0maru: no vault', tooltip: 'No .k0maru folder in this workspace. Run `k0maru init` to create one.' };
    case 'untrusted':
      return { text: '$(shield) K0maru: restricted', tooltip: 'Restricted Mode: trust this workspace to index its notes.' };
    case 'scanning': {
      const progress = state.total ? ` ${state.done ?? 0}/${state.total}` : '';
      return { text: `$(sync~spin) K0maru: indexing${progress}`, tooltip: 'K0maru: scanning the vault' };
    }
    case 'ready': {
      const r = state.last.report;
      const noun = state.notes === 1 ? 'note' : 'notes';
      const lines = [
        `K0maru index: ${state.notes} ${noun}`,
        `Last scan (${state.last.reason}, ${state.last.at.toLocaleTimeString()}, ${r.durationMs.toFixed(0)} ms):`,
        `${r.added} added, ${r.modified} modified, ${r.touched} touched, ${r.unchanged} unchanged, ${r.deleted} deleted, ${r.skipped.length} skipped`,
      ];
      if (r.warnings.length) lines.push(`${r.warnings.length} warning(s): see the K0maru log`);
      return { text: `$(database) K0maru: ${state.notes} ${noun}`, tooltip: lines.join('\n') };
    }
    case 'error':
      return { text: '$(warning) K0maru: index error', tooltip: `${state.code}: ${state.message}\nClick to open the log.` };
  }
}

export function createStatusBar(): { item: vscode.StatusBarItem; update(state: IndexState, embedding?: EmbeddingProgress): void } {
  const item = vscode.window.createStatusBarItem('k0maru.index', vscode.StatusBarAlignment.Left, 10);
  item.name = 'K0maru Index';
  item.command = SHOW_LOG_COMMAND;
  return {
    item,
    update(state, embedding) {
      const { text, tooltip } = renderStatus(state, embedding);
      item.text = text;
      item.tooltip = tooltip;
      item.backgroundColor = state.kind === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
      item.show();
    },
  };
}
