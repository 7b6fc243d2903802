import * as vscode from 'vscode';
import type { Project } from '../core/project';
import type { ScanOptions, ScanReport } from '../core/scan/scanner';
import type { IndexState, ScanReason } from './api';
import { loadCore, toK0 } from './coreLoader';

const SAVE_DEBOUNCE_MS = 500;


/**
 * Owns the opened project for one workspace and serialises scans: at most one runs, and any number of requests
 * made meanwhile collapse into a single follow-up scan (a burst of saves costs two scans, not N). The core is
 * loaded on the first scan, not at activation, so activate() does not pay for SQLite, markdown-it and the hasher.
 */
export class IndexController implements vscode.Disposable {
  private opened: Project | undefined;
  private current: Promise<ScanReport> | undefined;
  private next: Promise<ScanReport> | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private debounced: Promise<void> | undefined;
  private resolveDebounced: (() => void) | undefined;
  private stateValue: IndexState = { kind: 'starting' };
  private readonly changed = new vscode.EventEmitter<IndexState>();
  readonly onDidChangeState = this.changed.event;

  constructor(
    readonly projectRoot: string,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get state(): IndexState {
    return this.stateValue;
  }

  /** Folder of Markdown notes, once the project is open (a bound vault may live outside the workspace). */
  get notesRoot(): string | undefined {
    return this.opened?.paths.notesRoot;
  }

  private setState(s: IndexState): void {
    this.stateValue = s;
    this.changed.fire(s);
  }

  scan(reason: ScanReason, onProgress?: ScanOptions['onProgress']): Promise<ScanReport> {
    if (!this.current) {
      this.current = this.runOnce(reason, onProgress).finally(() => {
        this.current = undefined;
      });
      return this.current;
    }
    // `current` clears itself in its own finally, which runs before this continuation.
    this.next ??= this.current
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.scan(reason, onProgress);
      });
    return this.next;
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
        .catch(() => undefined) // already logged and shown in the status bar by runOnce
        .finally(() => done?.());
    }, delayMs);
  }

  async whenIdle(): Promise<void> {
    for (;;) {
      const pending = this.debounced ?? this.next ?? this.current;
      if (!pending) return;
      await pending.catch(() => undefined);
    }
  }

  private async runOnce(reason: ScanReason, onProgress?: ScanOptions['onProgress']): Promise<ScanReport> {
    this.setState({ kind: 'scanning' });
    try {
      const project = this.open();
      const report = await project.scan({
        // Never hold the extension host's event loop for long: yield every 20 ms of scanning.
        yieldEveryMs: 20,
        onProgress: (p) => {
          this.setState({ kind: 'scanning', done: p.done, total: p.total });
          onProgress?.(p);
        },
      });
      this.logReport(reason, report);
      this.setState({ kind: 'ready', notes: report.total, last: { reason, at: new Date(), report } });
      return report;
    } catch (err) {
      const e = toK0(err);
      this.log.error(`scan (${reason}) failed: ${e.code}: ${e.message}`);
      this.setState({ kind: 'error', code: e.code, message: e.message });
      throw e;
    }
  }

  /** The opened project (opened now if no scan ran yet): commands hand it to the core use cases. */
  project(): Project {
    return this.open();
  }

  private open(): Project {
    if (this.opened) return this.opened;
    const { openProject, pathsForProject } = loadCore();
    // The workspace folder is the project: no walking up and no K0MARU_VAULT from the editor's environment.
    this.opened = openProject({
      paths: pathsForProject(this.projectRoot),
      log: (level, message) => this.log[level](message),
    });
    this.log.info(`opened vault ${this.opened.paths.notesRoot} (index ${this.opened.paths.indexPath})`);
    return this.opened;
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
    try {
      this.opened?.close();
    } catch (err) {
      this.log.warn(`closing the index failed: ${(err as Error).message}`);
    }
    this.opened = undefined;
  }
}
