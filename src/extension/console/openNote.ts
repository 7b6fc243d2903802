import * as vscode from 'vscode';
import type { Project } from '../../core/project';
import type { OpenNoteResult } from '../../shared/protocol';
import type { ConsoleCore } from '../coreLoader';
import type { ConsoleLayout } from './webviewHtml';

/**
 * `openNote` in VS Code: the note opens in a real editor at the hit's line instead of being rendered in the page.
 * The page names a note by its vault-relative path; it may only open notes the index knows whose real path stays
 * inside the notes root (`..`, absolute paths and symlinks leading out are refused): resolveIndexedNote, the
 * rule the browser host applies too (src/core/console/note.ts). From the panel the note opens beside the console, so both stay in view.
 */
export async function openNoteInEditor(
  core: ConsoleCore,
  project: Pick<Project, 'index' | 'paths'>,
  params: { path: string; line?: number },
  layout: ConsoleLayout,
): Promise<OpenNoteResult> {
  const { abs } = core.resolveIndexedNote(project, params.path);
  const pos = new vscode.Position(Math.max(0, (params.line ?? 1) - 1), 0);
  await vscode.window.showTextDocument(vscode.Uri.file(abs), {
    selection: new vscode.Range(pos, pos),
    preview: false,
    viewColumn: layout === 'panel' ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
  });
  return { shown: 'editor', path: params.path };
}
