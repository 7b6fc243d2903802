import * as vscode from 'vscode';
import { join, relative, sep } from 'node:path';
import type { VaultPaths } from '../core/vault/paths';
import type { HostRecallOptions, VectorAttempt } from '../core/host';
import type { RecallResult } from '../core/search/types';
import type { ScanReason } from './api';
import { loadCore } from './coreLoader';
import { GuardCodeActions, GuardDiagnostics } from './guardDiagnostics';
import { InferredRuleView } from './inferredRules';
import { IndexController } from './indexController';
import { mcpLaunch, registerMcpServer, tellNoProviderOnce, type McpLaunch, type McpRegistration } from './mcpRegistration';
import { RuleModel } from './ruleModel';
import type { Settings } from './settings';

export interface SessionDeps {
  log: vscode.LogOutputChannel;
  extensionPath: string;
  version: string;
  settings(): Settings;
  /** A view's data may have changed. */
  viewsStale(which: 'index' | 'rules' | 'offloads'): void;
  /** The extension's global state: what the user was already told. */
  state: vscode.Memento;
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
  /** Inferred rules shown in their ADRs, with the "Write as an explicit rule" quick fix. */
  readonly inferred: InferredRuleView;
  private pathsValue: VaultPaths | undefined;
  private mcpKind: McpRegistration = 'none';
  private mcpNoticeValue: 'shown' | 'already-shown' | undefined;
  private started = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(readonly projectRoot: string, private readonly deps: SessionDeps) {
    this.controller = new IndexController(projectRoot, deps.log, {
      model: () => deps.settings().embeddingModelPath || undefined,
      onVectorsCovered: () => deps.viewsStale('index'),
    });
    // The project's note sources (vault + the repository's ADR folders), the same set the CLI guard and the index read.
    this.rules = new RuleModel(() => this.paths(), deps.log);
    this.guard = new GuardDiagnostics(projectRoot, () => this.paths().notesRoot, this.rules, deps.settings, deps.log);
    this.inferred = new InferredRuleView(() => this.paths(), this.rules);
    this.disposables.push(
      // Its host stops the embedding worker before it closes the index the worker reads.
      this.controller,
      this.rules,
      this.guard,
      this.inferred,
      this.controller.onDidChangeState((s) => {
        if (s.kind === 'ready') deps.viewsStale('index');
      }),
      this.rules.onDidChange(() => deps.viewsStale('rules')),
      vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new GuardCodeActions(this.guard), { providedCodeActionKinds: GuardCodeActions.kinds }),
      vscode.languages.registerCodeActionsProvider({ scheme: 'file', language: 'markdown' }, this.inferred, { providedCodeActionKinds: InferredRuleView.kinds }),
    );
    if (vscode.workspace.isTrusted) setTimeout(() => this.start('activation'), 0);
    else this.disposables.push(vscode.workspace.onDidGrantWorkspaceTrust(() => this.start('trust-granted')));
  }

  get mcpRegistration(): McpRegistration {
    return vscode.workspace.isTrusted ? this.mcpKind : 'untrusted';
  }

  /** Whether the user was told how agents get the server on a host without the MCP provider API. */
  get mcpNotice(): 'shown' | 'already-shown' | undefined {
    return this.mcpNoticeValue;
  }

  mcpLaunch(): McpLaunch {
    return mcpLaunch(this.deps.extensionPath, this.projectRoot);
  }

  /**
   * The vector channel for hybrid recall, from the host the MCP server and `k0maru ui` run on too: one embedding
   * worker thread (1 ORT thread, so the extension host keeps a core) started on the first recall; each call embeds
   * what the scanner changed for up to `budgetMs`, then the rest fills in in the background. A warning instead of a
   * channel means: answer with BM25 (no usable model).
   */
  vectors(budgetMs: number): Promise<VectorAttempt> {
    return this.controller.host.vectors(budgetMs);
  }

  /** Recall under the one policy (hybrid from BM25 with the reason until a model loads), after a fresh scan. */
  recall(query: string, opts: HostRecallOptions = {}): Promise<RecallResult> {
    return this.controller.host.recall(query, { reason: 'command', ...opts });
  }

  private async dropVectors(): Promise<void> {
    await this.controller.resetVectors().catch((err) => this.deps.log.warn(`stopping the embedding worker: ${(err as Error).message}`));
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
      if (mcp.kind === 'none') this.mcpNoticeValue = tellNoProviderOnce(this.deps.state);
    });
    // A later turn: loading the guard bundle and the index bundle in one turn would add up their stalls.
    setTimeout(() => step('starting the guard', () => {
      void this.guard.start();
      void this.inferred.start();
    }), 0);
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
