import * as vscode from 'vscode';
import { statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { ScanReport } from '../core/scan/scanner';
import type { K0maruApi, IndexState } from './api';
import { IndexController } from './indexController';
import { createStatusBar, renderStatus, SHOW_LOG_COMMAND } from './statusBar';

// Only vscode, node built-ins and the small modules above load with the extension: the core (SQLite, markdown-it,
// the hasher) is imported inside IndexController on the first scan, so activate() stays in the low milliseconds.

export const REINDEX_COMMAND = 'k0maru.reindex';
const K0_DIR = '.k0maru';

export function activate(context: vscode.ExtensionContext): K0maruApi {
  const t0 = performance.now();
  const log = vscode.window.createOutputChannel('K0maru', { log: true });
  context.subscriptions.push(log);
  let controller: IndexController | undefined;
  let noVault: IndexState = { kind: 'no-vault' };
  try {
    const root = findProjectRoot();
    const status = createStatusBar();
    context.subscriptions.push(status.item);
    if (root) {
      controller = new IndexController(root, log);
      context.subscriptions.push(controller, controller.onDidChangeState((s) => status.update(s)));
      watchVault(context, controller);
      if (vscode.workspace.isTrusted) startScan(controller, 'activation');
      else {
        status.update({ kind: 'untrusted' });
        const c = controller;
        context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => startScan(c, 'trust-granted')));
      }
    } else {
      status.update(noVault);
    }
    context.subscriptions.push(
      vscode.commands.registerCommand(REINDEX_COMMAND, () => reindexWithProgress(controller, log)),
      vscode.commands.registerCommand(SHOW_LOG_COMMAND, () => log.show(true)),
    );
  } catch (err) {
    // A broken activation must still leave the log readable and the API usable.
    log.error(`activation failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    noVault = { kind: 'error', code: 'INTERNAL', message: `activation failed: ${(err as Error).message}` };
  }
  const activationMs = performance.now() - t0;
  log.info(`activated in ${activationMs.toFixed(2)} ms${controller ? ` for ${controller.projectRoot}` : ' (no .k0maru folder in the workspace)'}`);

  const state = (): IndexState => (controller && vscode.workspace.isTrusted ? controller.state : controller ? { kind: 'untrusted' } : noVault);
  return {
    activationMs,
    projectRoot: controller?.projectRoot,
    state,
    statusBar: () => renderStatus(state()),
    reindex: () => (controller ? controller.scan('command') : Promise.reject(new Error('no .k0maru folder in this workspace'))),
    whenIdle: () => controller?.whenIdle() ?? Promise.resolve(),
  };
}

export function deactivate(): void {
  // Everything (the index handle included) is released through context.subscriptions.
}

/** The first workspace folder that holds a `.k0maru` folder. */
function findProjectRoot(): string | undefined {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') continue;
    try {
      if (statSync(join(folder.uri.fsPath, K0_DIR)).isDirectory()) return folder.uri.fsPath;
    } catch {
      // no .k0maru here
    }
  }
  return undefined;
}

function startScan(controller: IndexController, reason: 'activation' | 'trust-granted'): void {
  // On a later turn: loading the core and opening SQLite must not count against (or block) activation.
  // Failures are logged and shown by the controller.
  controller.scheduleScan(reason, 0);
}

/** Rescans (debounced) when a vault note is saved in the editor or changed on disk by an agent or the CLI. */
function watchVault(context: vscode.ExtensionContext, controller: IndexController): void {
  const defaultNotesRoot = join(controller.projectRoot, K0_DIR, 'wiki');
  const inVault = (uri: vscode.Uri): boolean => {
    if (uri.scheme !== 'file' || !uri.fsPath.toLowerCase().endsWith('.md')) return false;
    const root = controller.notesRoot ?? defaultNotesRoot;
    return uri.fsPath.startsWith(root + sep);
  };
  const onChange = (reason: 'save' | 'file-change') => (uri: vscode.Uri) => {
    if (vscode.workspace.isTrusted && inVault(uri)) controller.scheduleScan(reason);
  };
  const onSave = onChange('save');
  context.subscriptions.push(vscode.workspace.onDidSaveTextDocument((doc) => onSave(doc.uri)));

  // The watcher needs the notes root, which a bound vault moves: create it once the project is open.
  const sub = controller.onDidChangeState(() => {
    const root = controller.notesRoot;
    if (!root) return;
    sub.dispose();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '**/*.md'));
    const onFile = onChange('file-change');
    context.subscriptions.push(watcher, watcher.onDidCreate(onFile), watcher.onDidChange(onFile), watcher.onDidDelete(onFile));
  });
  context.subscriptions.push(sub);
}

async function reindexWithProgress(controller: IndexController | undefined, log: vscode.LogOutputChannel): Promise<ScanReport | undefined> {
  if (!controller) {
    void vscode.window.showErrorMessage('K0maru: this workspace has no .k0maru folder. Run `k0maru init` in a terminal first.');
    return undefined;
  }
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage('K0maru: trust this workspace to index its notes (Restricted Mode writes nothing).');
    return undefined;
  }
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'K0maru: indexing notes', cancellable: false },
      async (progress) => {
        let reported = 0;
        const report = await controller.scan('command', ({ done, total }) => {
          const pct = total ? (done / total) * 100 : 100;
          progress.report({ message: `${done}/${total}`, increment: pct - reported });
          reported = pct;
        });
        log.info(`reindex: ${report.total} notes in ${report.durationMs.toFixed(1)} ms`);
        return report;
      },
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`K0maru: indexing failed: ${(err as Error).message}`, 'Open Log').then((choice) => {
      if (choice) log.show(true);
    });
    return undefined;
  }
}
