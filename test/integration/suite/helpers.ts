import * as vscode from 'vscode';
import type { K0maruApi } from '../../../src/extension/api';

export const EXTENSION_ID = 'k0maru.k0maru-agent-memory';

export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the test workbench opened no folder');
  return folder.uri.fsPath;
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
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
