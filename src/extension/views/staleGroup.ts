import * as vscode from 'vscode';
import type { Project } from '../../core/project';
import { noteFilePath } from '../../core/vault/notePath';
import { loadCore } from '../coreLoader';
import type { StaleNoteRef } from '../staleCommands';
import type { ListNode } from './listTree';

/** contextValue of a stale note's row: package.json's menus show Show Changes and Mark Verified on it. */
export const STALE_ITEM_CONTEXT = 'k0maru.stale';

/**
 * The Memory view's "Stale" group: notes whose anchored code changed or disappeared since their base, each with
 * the reason a person can act on, as the last scan computed it. No stale note → no group. Staleness not computed
 * (no git repository, git missing, a shallow clone without bases) → one row saying so instead of an empty list
 * that would read as "all fresh".
 */
export function buildStale(project: Project): { group?: ListNode; off?: ListNode } {
  const core = loadCore();
  const status = core.stalenessStatus(project.index);
  if (!status.enabled) {
    return { off: { label: 'Stale', description: `off: ${status.reason}`, icon: 'circle-slash', tooltip: `Staleness is not computed for this project: ${status.reason}` } };
  }
  const stale = core.listStale(project.index);
  if (!stale.length) return {};
  const children = stale.map((s): ListNode => {
    const ref: StaleNoteRef = { path: s.path };
    const anchors = s.info.anchors.map((a) => `• ${a.reason}`).join('\n');
    return {
      label: s.title,
      description: s.info.reason,
      tooltip: `${s.path} — stale since ${s.info.since}\n${anchors || s.info.reason}`,
      icon: 'warning',
      command: { command: 'k0maru.openAdr', title: 'Open', arguments: [vscode.Uri.file(noteFilePath(project.paths, s.path)), 1] },
      contextValue: STALE_ITEM_CONTEXT,
      arg: ref,
    };
  });
  const unknown = status.unknown ? ` · ${status.unknown} unknown` : '';
  return {
    group: {
      label: 'Stale',
      description: `${children.length}${unknown}`,
      tooltip: `Notes whose anchored code changed since they were last true (HEAD ${status.head.slice(0, 7)})${status.unknown ? `; ${status.unknown} note(s) have a base missing from the local history (not judged)` : ''}`,
      icon: 'warning',
      children,
    },
  };
}
