import * as vscode from 'vscode';
import type { Project } from '../core/project';
import type { HostRecallOptions } from '../core/host';
import type { RecallResult } from '../core/search/types';
import type { AdrRules } from '../core/guard/types';
import type { McpRegistration } from './mcpRegistration';
import { toK0 } from './coreLoader';
import type { IndexController } from './indexController';
import type { Settings } from './settings';

/** What the palette commands need from the running extension; no globals, one object passed in. */
export interface CommandHost {
  readonly extensionPath: string;
  readonly log: vscode.LogOutputChannel;
  /** The controller of the opened vault, or undefined when the workspace has none yet. */
  controller(): IndexController | undefined;
  /** The first local workspace folder (where Init creates `.k0maru/`). */
  workspaceRoot(): string | undefined;
  settings(): Settings;
  /** Recall under the one policy the MCP tool and the CLI answer with (see VaultSession.recall). */
  recall(query: string, opts?: HostRecallOptions): Promise<RecallResult>;
  /** A command changed what the views show (the offload ledger); file watchers would notice too, later. */
  refreshViews(): void;
  /** Called after Init created a vault: the extension opens it without a reload. */
  vaultCreated(root: string): void;
  /** How this editor registered the MCP server ('vscode' = the provider API lists it already). */
  mcpRegistration(): McpRegistration;
  /** The vault's ADR rules as the guard holds them now (none without a vault). */
  rules(): Promise<AdrRules[]>;
  /** Shows Markdown as a read-only `k0maru:` document titled `<name>.md` (virtualDocuments.ts). */
  showDocument(name: string, markdown: string): Promise<vscode.TextDocument>;
}

/** Rejects (with a message to the user) when the workspace is untrusted: these commands write. */
export function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(`K0maru: ${what} is disabled in Restricted Mode. Trust this workspace to use it.`);
  return false;
}

/** The opened project, indexed up to now; undefined (after telling the user) when there is no vault. */
export async function requireProject(host: CommandHost, what: string): Promise<Project | undefined> {
  if (!requireTrust(what)) return undefined;
  const c = host.controller();
  if (!c) {
    const pick = await vscode.window.showErrorMessage('K0maru: this workspace has no vault yet.', 'Init Vault');
    if (pick) await vscode.commands.executeCommand('k0maru.initVault');
    return undefined;
  }
  return c.project();
}

/** Runs a command body, turning failures into one error message (with the core's error code) and a log line. */
export async function reportErrors<T>(host: CommandHost, what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    const e = toK0(err);
    host.log.error(`${what} failed: ${e.code}: ${e.message}`);
    void vscode.window.showErrorMessage(`K0maru: ${what} failed: ${e.message}`, 'Open Log').then((c) => {
      if (c) host.log.show(true);
    });
    return undefined;
  }
}

/** Opens a file at a 1-based line. */
export async function openAt(uri: vscode.Uri, line = 1): Promise<vscode.TextEditor> {
  const pos = new vscode.Position(Math.max(0, line - 1), 0);
  return vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos), preview: false });
}

/** The active editor's selection, or undefined when empty. */
export function selectedText(): string | undefined {
  const e = vscode.window.activeTextEditor;
  if (!e) return undefined;
  const text = e.selections.map((s) => e.document.getText(s)).join('\n');
  return text.trim() ? text : undefined;
}
