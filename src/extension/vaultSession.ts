import * as vscode from 'vscode';
import { join, relative, sep } from 'node:path';
import type { VaultPaths } from '../core/vault/paths';
import type { VectorSession } from '../core/embed/vectorSession';
import type { VectorChannel } from '../core/search/types';
import type { ScanReason } from './api';
import { loadCore } from './coreLoader';
import { GuardCodeActions, GuardDiagnostics } from './guardDiagnostics';
import { IndexController } from './indexController';
import { mcpLaunch, registerMcpServer, type McpLaunch, type McpRegistration } from './mcpRegistration';
import { RuleModel } from './ruleModel';
import type { Settings } from './settings';

/** One background embedding step in the editor: a Recall queued behind it waits at most this long. */
const BACKGROUND_EMBED_STEP_MS = 500;

export interface SessionDeps {
  log: vscode.LogOutputChannel;
  extensionPath: string;
  version: string;
  settings(): Settings;
  /** A view's data may have changed. */
  viewsStale(which: 'index' | 'rules' | 'offloads'): void;
}

/**
 * Everything tied to one opened vault: the index controller, the live ADR rules, the guard diagnostics, the
 * watchers and the MCP registration. It starts in two steps: the constructor only wires listeners (cheap, runs in
 * activate()); `start()` runs on a later turn and loads the core. In Restricted Mode nothing starts until trust is
 * granted: the guard runs git (whose config can run programs) and the index is a file we would write.
 */
export class VaultSession implements vscode.Disposable {
  readonly controller: IndexController;
  readonly rules: RuleModel;
  readonly guard: GuardDiagnostics;
  private pathsValue: VaultPaths | undefined;
  private mcpKind: McpRegistration = 'none';
  private started = false;
  private vectorSession: VectorSession | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly projectRoot: string, private readonly deps: SessionDeps) {
    this.controller = new IndexController(projectRoot, deps.log);
    this.rules = new RuleModel(() => this.paths().notesRoot, deps.log);
    this.guard = new GuardDiagnostics(projectRoot, () => this.paths().notesRoot, this.rules, deps.settings, deps.log);
    this.disposables.push(
      this.controller,
      // Disposed before the controller (the list is disposed in reverse): the worker reads the index it closes.
      { dispose: () => void this.dropVectors() },
      this.rules,
      this.guard,
      this.controller.onDidChangeState((s) => {
        if (s.kind === 'ready') deps.viewsStale('index');
      }),
      this.rules.onDidChange(() => deps.viewsStale('rules')),
      vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new GuardCodeActions(this.guard), { providedCodeActionKinds: GuardCodeActions.kinds }),
    );
    if (vscode.workspace.isTrusted) setTimeout(() => this.start('activation'), 0);
    else this.disposables.push(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start('trust-granted')));
  }

  get mcpRegistration(): McpRegistration {
    return vscode.workspace.isTrusted ? this.mcpKind : 'untrusted';
  }

  mcpLaunch(): McpLaunch {
    return mcpLaunch(this.deps.extensionPath, this.projectRoot);
  }

  /**
   * The vector channel for hybrid recall, as the MCP server does it (plus a background fill, see below): one embedding worker thread (1 ORT thread,
   * so the extension host keeps a core) started on the first recall; each call embeds what the scanner changed
   * for up to `budgetMs`. A warning instead of a channel means: answer with BM25 (no usable model).
   */
  async vectors(budgetMs = 1000): Promise<{ channel?: VectorChannel; warning?: string }> {
    const project = this.controller.project();
    const model = this.deps.settings().embeddingModelPath || undefined;
    this.vectorSession ??= loadCore().createVectorSession(project.index, { model, threads: 1 });
    const r = await this.vectorSession.prepare(budgetMs);
    // A person is looking (Recall, the console): cover the rest of the vault in the background, in short steps,
    // then let the views and consoles ask again.
    this.vectorSession.fillInBackground({
      stepMs: BACKGROUND_EMBED_STEP_MS,
      onCovered: () => this.deps.viewsStale('index'),
      log: (level, message) => this.deps.log[level](message),
    });
    return r;
  }

  private async dropVectors(): Promise<void> {
    const vs = this.vectorSession;
    this.vectorSession = undefined;
    await vs?.dispose().catch((err) => this.deps.log.warn(`stopping the embedding worker: ${(err as Error).message}`));
  }

  /** Vault paths (the bound vault's notes root included), known before the index opens. */
  paths(): VaultPaths {
    this.pathsValue ??= loadCore().pathsForProject(this.projectRoot);
    return this.pathsValue;
  }

  private start(reason: ScanReason): void {
    if (this.started) return;
    this.started = true;
    // Each step on its own: one failing (a watcher, a host API) must not leave the others unstarted.
    const step = (what: string, fn: () => void) => {
      try {
        fn();
      } catch (err) {
        this.deps.log.error(`${what} failed: ${(err as Error).stack ?? String(err)}`);
      }
    };
    step('scheduling the first scan', () => this.controller.scheduleScan(reason, 0));
    step('watching the vault', () => this.watch());
    step('MCP registration', () => {
      const mcp = registerMcpServer(this.mcpLaunch(), this.deps.version, this.deps.log);
      this.mcpKind = mcp.kind;
      this.disposables.push(mcp.disposable);
    });
    // A later turn: loading the guard bundle and the index bundle in one turn would add up their stalls.
    setTimeout(() => step('starting the guard', () => void this.guard.start()), 0);
    this.deps.viewsStale('offloads');
  }

  private watch(): void {
    const { notesRoot, refsDir } = this.paths();
    const ledgerGlob = relative(this.paths().k0Dir, join(refsDir, 'ledger.jsonl')).split(sep).join('/');
    const inVault = (uri: vscode.Uri) => uri.scheme === 'file' && uri.fsPath.toLowerCase().endsWith('.md') && uri.fsPath.startsWith(notesRoot + sep);
    // A vault note changed (editor save, agent, CLI, flush): rescan the index and reload the rules, which
    // re-checks every open file (the hot swap).
    const onVault = (reason: ScanReason) => (uri: vscode.Uri) => {
      if (!vscode.workspace.isTrusted || !inVault(uri)) return;
      this.controller.scheduleScan(reason);
      void this.rules.scheduleReload();
    };
    const notes = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(notesRoot), '**/*.md'));
    const onFile = onVault('file-change');
    const ledger = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(this.paths().k0Dir), ledgerGlob));
    const onLedger = () => this.deps.viewsStale('offloads');
    const onSave = onVault('save');
    this.disposables.push(
      notes, notes.onDidCreate(onFile), notes.onDidChange(onFile), notes.onDidDelete(onFile),
      ledger, ledger.onDidCreate(onLedger), ledger.onDidChange(onLedger),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        onSave(doc.uri);
        if (this.deps.settings().guardOnSave) this.guard.schedule(doc.uri);
      }),
      vscode.workspace.onDidOpenTextDocument((doc) => {
        if (this.deps.settings().guardOnSave) this.guard.schedule(doc.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => this.guard.forget(doc.uri)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('k0maru')) return;
        if (e.affectsConfiguration('k0maru.embeddingModelPath')) void this.dropVectors();
        if (!this.deps.settings().guardOnSave) this.guard.clearAll();
        else void this.guard.start();
      }),
    );
  }

  dispose(): void {
    for (const d of this.disposables.reverse()) d.dispose();
  }
}
