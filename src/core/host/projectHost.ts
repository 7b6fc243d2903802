import { AsyncLocalStorage } from 'node:async_hooks';
import { isK0Error } from '../errors';
import type { Logger } from '../index/db';
import type { Project } from '../project';
import type { ScanProgress, ScanReport } from '../scan/scanner';
import type { RecallResult } from '../search/types';
import type { VaultPaths } from '../vault/paths';
import type { BackgroundFill, EmbeddingProgress, VectorSession } from '../embed/vectorSession';
import { cancelled, throwIfCancelled, untilCancelled } from './cancel';
import { recallWithVectors, type PolicyRecallOptions, type VectorAttempt } from './recallPolicy';
import { ScanGate } from './scanGate';

/** How long close() waits for a running scan before it closes the index anyway. */
export const CLOSE_GRACE_MS = 5000;

/** What happened to one scan; the editor turns these into its status bar and log lines. */
export type ScanEvent =
  | { kind: 'started'; reason: string }
  | { kind: 'progress'; reason: string; done: number; total: number }
  | { kind: 'finished'; reason: string; report: ScanReport }
  | { kind: 'failed'; reason: string; error: unknown };

export interface ProjectHostOptions {
  /** Located like the CLI locates it (explicit vault, $K0MARU_VAULT, walking up from cwd) ... */
  vault?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** ... or given: the editor's workspace folder is the project, whatever its environment says. */
  paths?: VaultPaths;
  log: Logger;
  /** Scans yield to the event loop whenever they worked this long (the editor keeps its host responsive). */
  scanYieldMs?: number;
  /** Told about every scan. Without it the host logs each scan's warnings. */
  onScan?(event: ScanEvent): void;
  /** The embedding model (id or folder), read when the worker starts; default: $K0MARU_MODEL or the bundled one. */
  model?(): string | undefined;
  /**
   * For every long-lived host (MCP server, `k0maru ui`, the editor): once a hybrid recall has started the model,
   * embed the passages that have no vector in the background — steps of `stepMs`, each inference sized to about
   * `batchMs`, giving way to every caller — and call `onCovered` when the vault is covered. With it, a recall
   * spends its budget only on waiting for the model and answers from the vectors there are (coverage says how
   * many); without it (benches, tests), each recall embeds what is missing within its own budget.
   */
  backgroundFill?: Omit<BackgroundFill, 'log'>;
}

export interface FreshOptions {
  reason?: string;
  signal?: AbortSignal;
  onProgress?(p: ScanProgress): void;
}

/** What one call through `use()` / `healing()` returns: its value, and the warning when the index was healed meanwhile. */
export interface Healed<T> {
  value: T;
  warning?: string;
}

/**
 * Set for the duration of one healing() call: an inner healing() (host.recall inside an MCP tool the server wraps)
 * leaves retry and warning to the outer one, so a call heals and warns once.
 */
const healScope = new AsyncLocalStorage<true>();

export interface HostRecallOptions extends PolicyRecallOptions {
  /** Why the scan before the answer runs (default 'recall'). */
  reason?: string;
}

/**
 * The one long-lived host of a project, for the MCP server, `k0maru ui` and the editor alike. It opens the project
 * on first use and keeps it open, so the scanner's in-memory state stays warm; every answer is preceded by an
 * incremental scan that started after the request (a clean one costs a few ms), single-flighted by ScanGate; it
 * owns the embedding worker (started on the first hybrid recall, one ORT thread so the host keeps a core) and the
 * background fill; and it answers recall with the one policy in recallPolicy.ts. A vault that is not there yet is
 * looked for again on the next call, so `k0maru init` after the host started works. Every long operation takes an
 * AbortSignal: a cancelled caller stops waiting with CANCELLED, and work nobody waits for is not started.
 */
export class ProjectHost {
  private project: Project | undefined;
  private opening: Promise<Project> | undefined;
  private vectorSession: VectorSession | undefined;
  private closed = false;
  /** How many times the index was found damaged and replaced while this host had it open, and the last warning. */
  private heals = 0;
  private lastHeal = '';
  private readonly scans: ScanGate<{ project: Project; report: ScanReport }, ScanProgress>;

  constructor(private readonly opts: ProjectHostOptions) {
    this.scans = new ScanGate((reason, onProgress) => this.runScan(reason, onProgress));
  }

  /** The project with an incremental scan that started after this call (shared with the callers of that scan). */
  async fresh(opts: FreshOptions = {}): Promise<Project> {
    return (await this.scans.request({ reason: opts.reason, signal: opts.signal, onProgress: opts.onProgress })).project;
  }

  /** The scan `fresh()` waits for, with its report. */
  async scan(opts: FreshOptions = {}): Promise<ScanReport> {
    return (await this.scans.request({ reason: opts.reason, signal: opts.signal, onProgress: opts.onProgress })).report;
  }

  /** The project as of the last scan that was running when asked (no new scan): for views that refresh after scans. */
  async current(signal?: AbortSignal): Promise<Project> {
    await untilCancelled(this.scans.idle(), signal, 'waiting for the scan');
    return this.open();
  }

  /** The project's paths once it is open (undefined before the first use). */
  get openedPaths(): VaultPaths | undefined {
    return this.project?.paths;
  }

  /** True while a scan runs. */
  get scanning(): boolean {
    return this.scans.busy;
  }

  /** Resolves once no scan runs or waits. */
  idle(): Promise<void> {
    return this.scans.idle();
  }

  /**
   * Where the vault is, without opening the index: the offload tools only write under `.k0maru/refs/` and need
   * neither SQLite nor a scan.
   */
  async paths(): Promise<VaultPaths> {
    if (this.project) return this.project.paths;
    if (this.opts.paths) return this.opts.paths;
    const { locateVault } = await import('../vault/paths');
    return locateVault({ vault: this.opts.vault, cwd: this.opts.cwd, env: this.opts.env });
  }

  /**
   * The vector channel for hybrid recall: each call embeds what the scanner changed for up to `budgetMs`, then
   * answers (pending passages are reported). No usable model → a warning instead of a channel (BM25 answers).
   */
  async vectors(budgetMs = 1000, signal?: AbortSignal): Promise<VectorAttempt> {
    throwIfCancelled(signal, 'embedding');
    const project = await this.open();
    if (!this.vectorSession) {
      const { VectorSession } = await import('../embed/vectorSession');
      if (this.closed) throw cancelled('embedding (the host is closing)');
      this.vectorSession ??= new VectorSession(project.index, { env: this.opts.env, model: this.opts.model?.() || undefined, threads: 1 });
    }
    const session = this.vectorSession;
    const fill = this.opts.backgroundFill;
    const r = await untilCancelled(session.prepare(budgetMs, signal, { embed: !fill }), signal, 'embedding');
    if (fill) session.fillInBackground({ ...fill, log: this.opts.log });
    return r;
  }

  /**
   * How far the vectors cover the vault and whether the background fill runs (the editor's status bar, the
   * console's header). From memory, no query; undefined until a hybrid recall has loaded the model.
   */
  embedding(): EmbeddingProgress | undefined {
    return this.vectorSession?.progress();
  }

  /** Recall under the one policy (recallWithVectors), after a scan that started after the request. */
  async recall(query: string, opts: HostRecallOptions = {}): Promise<RecallResult> {
    // From the channel to the answer the background fill stays off the worker: the query embedding never waits for it.
    const releases: (() => void)[] = [];
    const source = async (budgetMs: number | undefined, signal?: AbortSignal) => {
      const r = await this.vectors(budgetMs, signal);
      if (r.channel && this.vectorSession) releases.push(this.vectorSession.hold());
      return r;
    };
    let healed: Healed<RecallResult>;
    try {
      healed = await this.use((project) => recallWithVectors(project, query, opts, source), { reason: opts.reason ?? 'recall', signal: opts.signal });
    } finally {
      for (const release of releases) release();
    }
    const { value, warning } = healed;
    if (warning) value.warnings = [warning, ...value.warnings];
    return value;
  }

  /**
   * Runs a read-only call on the fresh project (see healing()). `fn` may run twice: once on the damaged file,
   * once on the rebuilt index.
   */
  use<T>(fn: (project: Project) => Promise<T> | T, opts: FreshOptions = {}): Promise<Healed<T>> {
    return this.healing(async () => fn(await this.fresh(opts)));
  }

  /**
   * Heals the index within the call that meets its damage. When SQLite reports the file corrupt or not a database
   * (INDEX_CORRUPT) during `call` — thrown, or answered as a failed result that `failed` recognises — the file is
   * moved aside (IndexDb has usually done so already; otherwise it is checked and healed here), and `call` runs
   * once more: its fresh() rescans, refilling the empty index from the Markdown. A second failure is the caller's.
   * A heal that happened silently inside the call (the scan met the damage and refilled the index itself) is
   * reported too: `warning` says what happened, and the host's log has it. Only for calls that are safe to repeat.
   */
  async healing<T>(call: () => Promise<T>, failed?: (value: T) => boolean): Promise<Healed<T>> {
    if (healScope.getStore()) return { value: await call() };
    return healScope.run(true, async () => {
      const before = this.heals;
      let outcome: { value: T } | { error: unknown };
      try {
        outcome = { value: await call() };
      } catch (error) {
        outcome = { error };
      }
      const corrupt = 'error' in outcome ? isCorruptIndex(outcome.error) : !!failed?.(outcome.value);
      if (corrupt) {
        try {
          if (this.heals === before) this.project?.index.checkAndHeal();
        } catch {
          // The retry below meets whatever is still wrong and reports it in its own words.
        }
        // Not healed by the check either (the damage was elsewhere or already gone): the retry still rescans.
        if (this.heals === before) this.noteHeal('the index reported corruption; the call ran again after a check');
        outcome = { value: await call() };
      }
      if ('error' in outcome) throw outcome.error;
      if (this.heals === before) return { value: outcome.value };
      return { value: outcome.value, warning: `${this.lastHeal}${corrupt ? ' — the call ran again on the rebuilt index' : ''}` };
    });
  }

  /** Stops the embedding worker; the next hybrid recall starts one again (the editor's model setting changed). */
  async resetVectors(): Promise<void> {
    const vs = this.vectorSession;
    this.vectorSession = undefined;
    await vs?.dispose();
  }

  /**
   * Refuses new work, lets the running scan finish (for at most `graceMs`: a shutdown must never hang on a scan
   * that does not end), then stops the worker and closes the index. Idempotent.
   */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    this.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      this.scans.close().then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)).unref()),
    ]);
    clearTimeout(timer);
    if (!finished) this.opts.log('warn', `closing while a scan still runs after ${graceMs} ms: the index closes under it`);
    await this.opening?.catch(() => undefined);
    await this.resetVectors();
    this.project?.close();
    this.project = undefined;
  }

  private async open(): Promise<Project> {
    if (this.project) return this.project;
    if (this.closed) throw cancelled('opening the project (the host is closing)');
    // Loaded on first use: an MCP server's tools/list must not wait for SQLite and the parsers.
    this.opening ??= import('../project')
      .then(({ openProject }) => {
        if (this.closed) throw cancelled('opening the project (the host is closing)');
        const o = this.opts;
        // A host lives long enough to afford quick_check once on open; every replacement of the file is counted.
        const index = { quickCheck: true, onRebuild: (message: string) => this.noteHeal(message) };
        this.project = openProject(o.paths ? { paths: o.paths, log: o.log, index } : { vault: o.vault, cwd: o.cwd, env: o.env, log: o.log, index });
        return this.project;
      })
      .finally(() => (this.opening = undefined));
    return this.opening;
  }

  private noteHeal(message: string): void {
    this.heals++;
    this.lastHeal = message;
  }

  private async runScan(reason: string, onProgress: (p: ScanProgress) => void): Promise<{ project: Project; report: ScanReport }> {
    const tell = this.opts.onScan;
    tell?.({ kind: 'started', reason });
    try {
      const project = await this.open();
      const report = await project.scan({
        yieldEveryMs: this.opts.scanYieldMs,
        onProgress: (p) => {
          tell?.({ kind: 'progress', reason, done: p.done, total: p.total });
          onProgress(p);
        },
      });
      if (tell) tell({ kind: 'finished', reason, report });
      else for (const w of report.warnings) this.opts.log('warn', `${w.path}:${w.line}: ${w.message}`);
      return { project, report };
    } catch (err) {
      tell?.({ kind: 'failed', reason, error: err });
      throw err;
    }
  }
}

/** SQLITE_CORRUPT / SQLITE_NOTADB as IndexDb reports them. */
function isCorruptIndex(err: unknown): boolean {
  return isK0Error(err) && err.code === 'INDEX_CORRUPT';
}
