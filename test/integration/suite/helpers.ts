import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { K0maruApi } from '../../../src/extension/api';

export const EXTENSION_ID = 'k0maru.k0maru-agent-memory';

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the test workbench opened no folder');
  return folder.uri.fsPath;
}

/**
 * Polls `probe` until it returns something truthy. The deadline is generous on purpose (a loaded machine, load
 * average 10 on 2 cores, slows every step of the host several times over); a test waits on the condition it
 * checks, never on elapsed time, so a quiet machine still finishes in milliseconds. Below mocha's 60 s per test.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The extension's exported API, once it has activated by itself (we never call activate() here). */
export async function api(): Promise<K0maruApi> {
  const ext = vscode.extensions.getExtension<K0maruApi>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded in this host`);
  await waitFor('the extension to activate', () => ext.isActive, 20_000);
  return ext.exports;
}

/** The file's text on disk, or undefined while it cannot be read. */
function diskText(uri: vscode.Uri): string | undefined {
  try {
    return readFileSync(uri.fsPath, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Opens a file in the editor once the editor's copy is the file on disk. Right after a file is written (by a
 * WorkspaceEdit or by the test), the workbench may still be reloading its model from the file watcher's event;
 * editing before that reload lands makes the later save a conflict with a "newer" file on disk.
 */
export async function openSettled(uri: vscode.Uri): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(uri);
  await waitFor(`the editor's copy of ${uri.fsPath} to match the file on disk`, () => !doc.isDirty && doc.getText() === diskText(uri));
  return doc;
}

/**
 * Saves a document as a person does (the editor writes it) and waits until the file on disk holds exactly the
 * editor's text. Under load `save()` can resolve false without writing — VS Code cancels a save that another
 * save or a model reload overtakes, and leaves the document dirty — so while the document is still dirty the
 * save is asked for again, until the deadline. The failure message says what the editor and the disk hold.
 */
export async function saveInEditor(doc: vscode.TextDocument, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const results: boolean[] = [];
  for (;;) {
    if (doc.isDirty) {
      results.push(await doc.save());
      // Visible in the runner's log: how often a loaded machine needed the save asked again.
      if (results.length > 1 || !results[0]) console.log(`K0_NOTE save of ${doc.uri.fsPath} returned [${results.join(', ')}]; dirty=${doc.isDirty}`);
    }
    const onDisk = diskText(doc.uri);
    if (!doc.isDirty && onDisk === doc.getText()) return;
    if (Date.now() > deadline) {
      throw new Error(
        `saving ${doc.uri.fsPath} failed: save() returned [${results.join(', ')}], the document is ${doc.isDirty ? 'still dirty' : 'clean'}, ` +
          `the editor holds ${doc.getText().length} chars and the disk ${onDisk === undefined ? 'nothing' : `${onDisk.length} chars`}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
