import * as vscode from 'vscode';
import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ScanReport } from '../core/scan/scanner';
import type { K0maruApi, IndexState } from './api';
import type { CommandHost } from './commandHost';
import { registerCommands } from './commands';
import { registerConsole } from './console';
import { coreLoadTimes } from './coreLoader';
import { readSettings } from './settings';
import { createStatusBar, renderStatus, SHOW_LOG_COMMAND } from './statusBar';
import { VaultSession } from './vaultSession';
import { VirtualDocuments } from './virtualDocuments';
import { GitBaseDocuments } from './gitBaseDocuments';
import { StaleCommands } from './staleCommands';
import { OutputLog } from './outputLog';
import { ListTree } from './views/listTree';
import { buildArchitecture, buildMemory, buildOffloads } from './views/vaultViews';

// Only vscode, node built-ins and the small modules above load with the extension: the core (SQLite, markdown-it,
// the guard engine, the hasher) is required from dist/extensionCore.js on first use, so activate() stays in the
// low milliseconds.

export const REINDEX_COMMAND = 'k0maru.reindex';
const K0_DIR = '.k0maru';
declare const __K0MARU_VERSION__: string;

export function activate(context: vscode.ExtensionContext): K0maruApi {
  const t0 = performance.now();
  const log = new OutputLog('K0maru');
  context.subscriptions.push(log);
  let session: VaultSession | undefined;
  let noVault: IndexState = { kind: 'no-vault' };
  const status = createStatusBar();
  context.subscriptions.push(status.item);
  const version = typeof __K0MARU_VERSION__ === 'string' ? __K0MARU_VERSION__ : '0.0.0';

  const onError = (what: string) => (err: unknown) => log.error(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  const ready = () => (session && vscode.workspace.isTrusted ? session : undefined);
  const architecture = new ListTree(async () => {
    const s = ready();
    return s ? buildArchitecture(await s.controller.project(), await s.rules.adrs()) : [];
  }, onError('Architecture view'));
  const memory = new ListTree(async () => {
    const s = ready();
    return s ? buildMemory(await s.controller.project()) : [];
  }, onError('Memory view'));
  const offloads = new ListTree(async () => {
    const s = ready();
    return s ? buildOffloads(s.paths().refsDir) : [];
  }, onError('Offloads view'));
  const trees = { architecture, memory, offloads };
  const documents = new VirtualDocuments();
  context.subscriptions.push(documents);
  const consoles = registerConsole({ extensionUri: context.extensionUri, log, version, session: () => session });
  context.subscriptions.push(...consoles.disposables);
  const refreshAll = () => {
    for (const t of Object.values(trees)) t.refresh();
    consoles.host.notify('vaultChanged');
  };

  const openVault = (root: string) => {
    session?.dispose();
    session = new VaultSession(root, {
      log,
      extensionPath: context.extensionPath,
      version,
      settings: readSettings,
      state: context.globalState,
      viewsStale: (which) => {
        if (which === 'index') { memory.refresh(); architecture.refresh(); }
        else if (which === 'rules') architecture.refresh();
        else offloads.refresh();
        // The console shows search results (index), nothing from the rules, and the offloads and savings (ledger).
        if (which === 'index') consoles.host.notify('vaultChanged');
        else if (which === 'offloads') consoles.host.notify('ledgerChanged');
      },
    });
    const s = session;
    s.controller.onDidChangeState((st) => status.update(st, s.controller.embedding));
    s.controller.onDidChangeEmbedding((e) => status.update(s.controller.state, e));
    status.update(vscode.workspace.isTrusted ? s.controller.state : { kind: 'untrusted' });
    if (!vscode.workspace.isTrusted) {
      context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => {
        status.update(s.controller.state, s.controller.embedding);
        consoles.host.notify('vaultChanged');
      }));
    }
    void vscode.commands.executeCommand('setContext', 'k0maru.hasVault', true);
    refreshAll();
  };

  try {
    const root = findProjectRoot(readSettings().vaultPath);
    if (root) openVault(root);
    else {
      status.update(noVault);
      void vscode.commands.executeCommand('setContext', 'k0maru.hasVault', false);
    }
    const host: CommandHost = {
      extensionPath: context.extensionPath,
      log,
      controller: () => session?.controller,
      workspaceRoot: () => vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath,
      settings: readSettings,
      recall: (query, opts) => (session ? session.recall(query, opts) : Promise.reject(new Error('this workspace has no vault'))),
      refreshViews: refreshAll,
      vaultCreated: (root) => {
        if (session?.projectRoot !== root) openVault(root);
      },
      showDocument: (name, markdown) => documents.show(name, markdown),
      mcpRegistration: () => session?.mcpRegistration ?? 'none',
      rules: () => (session && vscode.workspace.isTrusted ? session.rules.adrs() : Promise.resolve([])),
    };
    const stale = new StaleCommands(host);
    context.subscriptions.push(
      { dispose: () => session?.dispose() },
      new GitBaseDocuments(() => stale.repoRoot()),
      ...stale.register(),
      architecture, memory, offloads,
      vscode.window.registerTreeDataProvider('k0maru.architecture', architecture),
      vscode.window.registerTreeDataProvider('k0maru.memory', memory),
      vscode.window.registerTreeDataProvider('k0maru.offloads', offloads),
      vscode.commands.registerCommand(REINDEX_COMMAND, () => reindexWithProgress(session, log)),
      vscode.commands.registerCommand(SHOW_LOG_COMMAND, () => log.show(true)),
      vscode.commands.registerCommand('k0maru.checkFile', (uri?: vscode.Uri) => checkFile(session, uri)),
      vscode.commands.registerCommand('k0maru.refreshViews', refreshAll),
      ...registerCommands(host),
    );
  } catch (err) {
    // A broken activation must still leave the log readable and the API usable.
    onError('activation failed')(err);
    noVault = { kind: 'error', code: 'INTERNAL', message: `activation failed: ${(err as Error).message}` };
  }
  const activationMs = performance.now() - t0;
  log.info(`activated in ${activationMs.toFixed(2)} ms${session ? ` for ${session.projectRoot}` : ' (no .k0maru folder in the workspace)'}`);

  const state = (): IndexState => (session && vscode.workspace.isTrusted ? session.controller.state : session ? { kind: 'untrusted' } : noVault);
  return {
    activationMs,
    coreLoadTimes,
    get projectRoot() {
      return session?.projectRoot;
    },
    state,
    statusBar: () => renderStatus(state(), session && vscode.workspace.isTrusted ? session.controller.embedding : undefined),
    reindex: () => (session ? session.controller.scan('command') : Promise.reject(new Error('no .k0maru folder in this workspace'))),
    whenIdle: async () => {
      await session?.controller.whenIdle();
      await session?.guard.whenIdle();
    },
    guard: {
      check: async (uri) => (session ? [...(await session.guard.check(uri))] : []),
      whenIdle: async () => session?.guard.whenIdle(),
    },
    views: {
      architecture: () => architecture.snapshot(),
      memory: () => memory.snapshot(),
      offloads: () => offloads.snapshot(),
    },
    mcp: () => (session ? { registration: session.mcpRegistration, launch: session.mcpLaunch(), ...(session.mcpNotice ? { notice: session.mcpNotice } : {}) } : { registration: 'none' }),
    console: consoles.api,
    logLines: () => log.recent(),
  };
}

export function deactivate(): void {
  // Everything (the index handle included) is released through context.subscriptions.
}

/** The folder holding `.k0maru`: the `k0maru.vaultPath` setting, else the first workspace folder that has one. */
function findProjectRoot(setting: string): string | undefined {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  const candidates = setting ? [isAbsolute(setting) ? setting : join(folders[0]?.uri.fsPath ?? '', setting)] : folders.map((f) => f.uri.fsPath);
  for (const dir of candidates) {
    try {
      if (statSync(join(dir, K0_DIR)).isDirectory()) return dir;
    } catch {
      // no .k0maru here
    }
  }
  return undefined;
}

/** Runs the guard on one file now (the active editor's by default), whatever k0maru.guardOnSave says. */
async function checkFile(session: VaultSession | undefined, uri?: vscode.Uri): Promise<vscode.Diagnostic[] | undefined> {
  const target = uri ?? vscode.window.activeTextEditor?.document.uri;
  if (!session || !target || !vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('K0maru: the guard needs a trusted workspace with a vault and an open file.');
    return undefined;
  }
  if (!session.guard.applies(target)) {
    void vscode.window.showInformationMessage('K0maru: this file is not checked (outside the project, in the vault or excluded by k0maru.exclude).');
    return [];
  }
  const diagnostics = [...(await session.guard.check(target))];
  const errors = diagnostics.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length;
  void vscode.window.showInformationMessage(diagnostics.length
    ? `K0maru: ${errors} error(s), ${diagnostics.length - errors} warning(s) from the ADR guard (see Problems).`
    : 'K0maru: no ADR rule is violated by the lines this file adds.');
  return diagnostics;
}

async function reindexWithProgress(session: VaultSession | undefined, log: vscode.LogOutputChannel): Promise<ScanReport | undefined> {
  if (!session) {
    void vscode.window.showErrorMessage('K0maru: this workspace has no .k0maru folder. Run "K0maru: Init Vault" first.');
    return undefined;
  }
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('K0maru: trust this workspace to index its notes (Restricted Mode writes nothing).');
    return undefined;
  }
  const controller = session.controller;
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'K0maru: indexing notes', cancellable: true },
      async (progress, token) => {
        let reported = 0;
        const report = await controller.scan('command', ({ done, total }) => {
          const pct = total ? (done / total) * 100 : 100;
          progress.report({ message: `${done}/${total}`, increment: pct - reported });
          reported = pct;
        }, token);
        log.info(`reindex: ${report.total} notes in ${report.durationMs.toFixed(1)} ms`);
        return report;
      },
    );
  } catch (err) {
    // Cancel in the notification: the person stopped waiting; the shared scan finishes in the background.
    if ((err as { code?: string }).code === 'CANCELLED') return undefined;
    void vscode.window.showErrorMessage(`K0maru: indexing failed: ${(err as Error).message}`, 'Open Log').then((choice) => {
      if (choice) log.show(true);
    });
    return undefined;
  }
}
