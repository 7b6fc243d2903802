import * as vscode from 'vscode';
import type { ProjectHost, ScanEvent } from '../core/host';
import type { EmbeddingProgress } from '../core/embed/vectorSession';
import type { Project } from '../core/project';
import type { ScanOptions, ScanReport } from '../core/scan/scanner';
import type { IndexState, ScanReason } from './api';
import { loadCore, toK0 } from './coreLoader';

const SAVE_DEBOUNCE_MS = 500;

export interface IndexControllerOptions {
  /** The embedding model setting, read when the worker starts. */
  model(): string | undefined;
  /** A background fill finished: every passage has its vector (views and consoles ask again). */
  onVectorsCovered(): void;
}

/** One background embedding step in the editor: a Recall queued behind it waits at most this long. */
const BACKGROUND_EMBED_STEP_MS = 500;

/**
 * The editor's face of the project's one long-lived host (core/host ProjectHost, the same the MCP server and
 * `k0maru ui` run on): the host single-flights the scans (a request during a scan gets a scan that started after
 * it; a burst of saves costs two scans, not N), owns the embedding worker and its background fill, and answers
 * recall with the one policy. This class adds only what is the editor's: the save debounce, the status-bar state
 * as a vscode event, and the log lines. The core is loaded on the first scan, not at activation, so activate()
 * does not pay for SQLite, markdown-it and the hasher.
 */
export class IndexController implements vscode.Disposable {
  private hostValue: ProjectHost | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private debounced: Promise<void> | undefined;
  private resolveDebounced: (() => void) | undefined;
  private stateValue: IndexState = { kind: 'starting' };
  private readonly changed = new vscode.EventEmitter<IndexState>();
  readonly onDidChangeState = this.changed.event;
  private embeddingValue: EmbeddingProgress | undefined;
  private readonly embeddingChanged = new vscode.EventEmitter<EmbeddingProgress>();
  /** The background fill's coverage, after every step and once more when it stops (the status bar shows it). */
  readonly onDidChangeEmbedding = this.embeddingChanged.event;

  constructor(
    readonly projectRoot: string,
    private readonly log: vscode.LogOutputChannel,
    private readonly opts: IndexControllerOptions,
  ) {}

  get state(): IndexState {
    return this.stateValue;
  }

  /** The background fill's last report; undefined before the first fill of this session. */
  get embedding(): EmbeddingProgress | undefined {
    return this.embeddingValue;
  }

  /** Folder of Markdown notes, once the project is open (a bound vault may live outside the workspace). */
  get notesRoot(): string | undefined {
    return this.hostValue?.openedPaths?.notesRoot;
  }

  /** The host, created with the core bundle on first use. */
  get host(): ProjectHost {
    if (this.hostValue) return this.hostValue;
    const core = loadCore();
    const paths = core.pathsForProject(this.projectRoot);
    this.hostValue = core.createProjectHost({
      // The workspace folder is the project: no walking up and no K0MARU_VAULT from the editor's environment.
      paths,
      log: (level, message) => this.log[level](message),
      // Never hold the extension host's event loop for long: yield every 20 ms of scanning.
      scanYieldMs: 20,
      onScan: (e) => this.onScan(e),
      model: this.opts.model,
      // A person is looking (Recall, the console): cover the rest of the vault in the background, in short steps.
      backgroundFill: {
        stepMs: BACKGROUND_EMBED_STEP_MS,
        onCovered: this.opts.onVectorsCovered,
        onProgress: (p) => {
          this.embeddingValue = p;
          this.embeddingChanged.fire(p);
        },
      },
    });
    this.log.info(`opening vault ${paths.notesRoot} (index ${paths.indexPath})`);
    return this.hostValue;
  }

  /**
   * A scan that starts after this call (shared with other callers); rejects with `{code, message}`. A cancelled
   * token stops this caller's wait (code CANCELLED); the scan itself, shared, runs to its end.
   */
  async scan(reason: ScanReason, onProgress?: ScanOptions['onProgress'], token?: vscode.CancellationToken): Promise<ScanReport> {
    const abort = new AbortController();
    const sub = token?.onCancellationRequested(() => abort.abort());
    if (token?.isCancellationRequested) abort.abort();
    try {
      return await this.host.scan({ reason, onProgress, signal: abort.signal });
    } catch (err) {
      throw toK0(err);
    } finally {
      sub?.dispose();
    }
  }

  /**
   * Schedules a scan `delayMs` after the last call (debounce); errors are logged, not thrown. A delay of 0 still
   * defers to a later turn of the event loop, which is how activation starts its scan without blocking activate().
   */
  scheduleScan(reason: ScanReason, delayMs = SAVE_DEBOUNCE_MS): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounced ??= new Promise((resolve) => (this.resolveDebounced = resolve));
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      const done = this.resolveDebounced;
      this.debounced = undefined;
      this.resolveDebounced = undefined;
      this.scan(reason)
        .catch(() => undefined) // already logged and shown in the status bar by onScan
        .finally(() => done?.());
    }, delayMs);
  }

  /** Resolves once no scan is running, queued or waiting for its debounce. */
  async whenIdle(): Promise<void> {
    for (;;) {
      const pending = this.debounced ?? (this.hostValue?.scanning ? this.hostValue.idle() : undefined);
      if (!pending) return;
      await pending.catch(() => undefined);
    }
  }

  /** The project as of the last scan that was running or queued when asked: the views and the console read it. */
  async project(): Promise<Project> {
    await this.whenIdle();
    return this.host.current();
  }

  /** Stops the embedding worker (the model setting changed); the next hybrid recall starts one again. */
  async resetVectors(): Promise<void> {
    await this.hostValue?.resetVectors();
  }

  private onScan(e: ScanEvent): void {
    const reason = e.reason as ScanReason;
    if (e.kind === 'started') this.setState({ kind: 'scanning' });
    else if (e.kind === 'progress') this.setState({ kind: 'scanning', done: e.done, total: e.total });
    else if (e.kind === 'finished') {
      this.logReport(reason, e.report);
      this.setState({ kind: 'ready', notes: e.report.total, last: { reason, at: new Date(), report: e.report } });
    } else {
      const err = toK0(e.error);
      this.log.error(`scan (${reason}) failed: ${err.code}: ${err.message}`);
      this.setState({ kind: 'error', code: err.code, message: err.message });
    }
  }

  private setState(s: IndexState): void {
    this.stateValue = s;
    this.changed.fire(s);
  }

  private logReport(reason: ScanReason, r: ScanReport): void {
    this.log.info(
      `scan (${reason}): ${r.added} added, ${r.modified} modified, ${r.touched} touched, ${r.unchanged} unchanged, ` +
        `${r.deleted} deleted, ${r.skipped.length} skipped in ${r.durationMs.toFixed(1)} ms; ${r.total} notes`,
    );
    for (const s of r.skipped) this.log.warn(`skipped ${s.path}: ${s.reason}`);
    for (const w of r.warnings) this.log.warn(`${w.path}:${w.line}: ${w.message}`);
  }

  dispose(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.resolveDebounced?.();
    this.changed.dispose();
    this.embeddingChanged.dispose();
    // The host lets a running scan finish, then stops the embedding worker and closes the index.
    void this.hostValue?.close().catch((err: unknown) => this.log.warn(`closing the index failed: ${(err as Error).message}`));
    this.hostValue = undefined;
  }
}
