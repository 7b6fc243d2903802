import type * as vscode from 'vscode';
import type { ScanReport } from '../core/scan/scanner';
import type { McpLaunch, McpRegistration } from './mcpRegistration';
import type { NodeSnapshot } from './views/listTree';

/**
 * What the index looks like from the editor. `no-vault`: the workspace has no `.k0maru` folder (activated by a
 * command); `untrusted`: Restricted Mode, we write nothing (the index is a file in the workspace).
 */
export type IndexState =
  | { kind: 'starting' }
  | { kind: 'no-vault' }
  | { kind: 'untrusted' }
  | { kind: 'scanning'; done?: number; total?: number }
  | { kind: 'ready'; notes: number; last: LastScan }
  | { kind: 'error'; code: string; message: string };

export interface LastScan {
  reason: ScanReason;
  at: Date;
  report: ScanReport;
}

export type ScanReason = 'activation' | 'command' | 'save' | 'file-change' | 'trust-granted';

/**
 * The object `activate()` returns. Other extensions may read it; the integration tests use it to check what the
 * user sees (status bar text) without scraping the workbench DOM.
 */
export interface K0maruApi {
  /** Wall time of `activate()` itself, in milliseconds. */
  readonly activationMs: number;
  /** Milliseconds each first (synchronous) load of a core bundle (dist/extension{Core,Guard,Tools}.js) took. */
  coreLoadTimes(): Record<string, number>;
  /** The folder holding `.k0maru/`, when the workspace has one. */
  readonly projectRoot: string | undefined;
  state(): IndexState;
  statusBar(): { text: string; tooltip: string };
  /** Runs an incremental scan now (queued behind a running one) and resolves with its report. */
  reindex(): Promise<ScanReport>;
  /** Resolves once no scan is running or waiting (debounced saves included). */
  whenIdle(): Promise<void>;
  /** The editor's guard: check one file now (returns what it published), or wait for pending checks. */
  readonly guard: {
    check(uri: vscode.Uri): Promise<vscode.Diagnostic[]>;
    whenIdle(): Promise<void>;
  };
  /** What the sidebar's trees hold right now. */
  readonly views: {
    architecture(): Promise<NodeSnapshot[]>;
    memory(): Promise<NodeSnapshot[]>;
    offloads(): Promise<NodeSnapshot[]>;
  };
  /** How (and whether) the MCP server was registered with the host, and the command line it runs. */
  /**
   * How the MCP server reaches agents here; `notice` is 'shown' when this host has no MCP provider API and the user
   * was told (once per installation) how agents get the server instead.
   */
  mcp(): { registration: McpRegistration; launch?: McpLaunch; notice?: 'shown' | 'already-shown' };
  /** The latest lines of the K0maru output channel, each stamped with the time it was written. */
  logLines(): string[];
  /** The console webviews (panel and sidebar view), as far as the host saw them talk. */
  readonly console: {
    /** Resolves once a page of that layout (any, when omitted) sent `ready` and was sent its `hello`. */
    whenReady(layout?: 'panel' | 'sidebar'): Promise<ConsoleInfo>;
    stats(): ConsoleStats;
  };
}

/** The `hello` a console page received. */
export interface ConsoleInfo {
  layout: 'panel' | 'sidebar';
  vaultName: string;
  version: string;
  protocol: number;
}

/** What the console host did since activation; counts only messages the webview accepted. */
export interface ConsoleStats {
  /** Pages rendered (a panel or view shown again after being disposed counts again). */
  pages: number;
  hellos: number;
  /** The vault name the last hello told each layout's page (hellos are sent again when the vault changes). */
  vaultNames: Partial<Record<'panel' | 'sidebar', string>>;
  /** Successful responses by method. */
  answered: Record<string, number>;
  /** Error responses (invalid messages, failed requests). */
  failed: number;
  /** Change events pushed (each to every open page). */
  events: number;
}
