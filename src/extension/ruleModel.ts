import * as vscode from 'vscode';
import type { AdrRules } from '../core/guard/types';
import type { RuleSources } from '../core/guard/ruleStore';
import { loadGuard, toK0 } from './coreLoader';

const RELOAD_DEBOUNCE_MS = 150;

/**
 * The live set of ADR rules for one vault: the guard diagnostics run against it and the Architecture view shows
 * it. Reloaded when a vault note changes (saved in the editor, written by an agent, the CLI or a flush);
 * `loadVaultRules` keeps a (path, mtime, size) memo, so a reload re-parses only the notes that changed.
 */
export class RuleModel implements vscode.Disposable {
  private adrsValue: AdrRules[] | undefined;
  private loading: Promise<AdrRules[]> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pendingReload: Promise<void> | undefined;
  private resolvePending: (() => void) | undefined;
  private readonly changed = new vscode.EventEmitter<AdrRules[]>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly notes: () => RuleSources,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The current rules, loading them the first time. */
  adrs(): Promise<AdrRules[]> {
    if (this.adrsValue) return Promise.resolve(this.adrsValue);
    return this.load();
  }

  /** Debounced reload; resolves once the reload ran and listeners were told. */
  scheduleReload(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.pendingReload ??= new Promise((resolve) => (this.resolvePending = resolve));
    const pending = this.pendingReload;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const done = this.resolvePending;
      this.pendingReload = undefined;
      this.resolvePending = undefined;
      this.load()
        .then((adrs) => this.changed.fire(adrs))
        .catch(() => undefined)
        .finally(() => done?.());
    }, RELOAD_DEBOUNCE_MS);
    return pending;
  }

  /** Resolves when no reload is waiting or running. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const p = this.pendingReload ?? this.loading;
      if (!p) return;
      await p.then(() => undefined, () => undefined);
    }
  }

  private load(): Promise<AdrRules[]> {
    // A load already running may have read the notes before the change: chain a fresh one after it.
    const previous = this.loading ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const t0 = performance.now();
        try {
          const loaded = await loadGuard().loadVaultRules(this.notes());
          this.adrsValue = loaded.adrs;
          // The count the CLI's report and the Architecture view say (core ruleCounts).
          const n = loadGuard().ruleCounts(loaded.adrs);
          this.log.info(`guard rules: ${n.rules} active rule(s) in ${n.adrs} ADR(s)${n.inactiveAdrs ? `; ${n.inactiveAdrs} superseded or retired ADR(s) whose rules do not apply` : ''}; ${loaded.parsed} parsed, ${loaded.cached} cached, ${(performance.now() - t0).toFixed(1)} ms`);
          return loaded.adrs;
        } catch (err) {
          const e = toK0(err);
          this.log.error(`loading guard rules failed: ${e.code}: ${e.message}`);
          throw err;
        }
      });
    this.loading = run;
    void run.finally(() => {
      if (this.loading === run) this.loading = undefined;
    }).catch(() => undefined);
    return run;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.resolvePending?.();
    this.changed.dispose();
  }
}
