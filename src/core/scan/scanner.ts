import { availableParallelism } from 'node:os';
import type { IndexDb } from '../index/db';
import { DocumentWriter } from '../index/store';
import { resolveLinks } from '../index/links';
import type { PreparedRecord } from '../index/store';
import type { SkippedFile } from '../vault/noteFiles';
import { listSourceNotes, type NoteSource } from '../vault/noteSources';
import type { FileJob } from './examine';
import { OutcomeStream } from './outcomeStream';
import { sharedParseWorker, type ParseWorker } from './parsePool';

export interface ScanWarning {
  path: string;
  line: number;
  message: string;
}

export interface ScanReport {
  added: number;
  modified: number;
  touched: number;
  unchanged: number;
  deleted: number;
  skipped: SkippedFile[];
  warnings: ScanWarning[];
  /** Notes in the index after the scan. */
  total: number;
  durationMs: number;
  /** Paths whose indexed content changed (added or modified), for re-embedding and rule hot-swap. */
  changedPaths: string[];
  deletedPaths: string[];
  /** Present when a parse worker examined files (large scans): its requests used, and whether it failed midway. */
  parseWorker?: { requests: number; fellBack: boolean };
  /** The staleness update Project.scan() ran after this scan (absent when it failed or was not run). */
  staleness?: { checked: number; stale: number; ms: number; status: import('../stale/types').StalenessStatus; warnings: string[] };
}

export interface ScanProgress {
  done: number;
  total: number;
}

export interface ScanOptions {
  onProgress?: (p: ScanProgress) => void;
  /** Larger files are skipped and reported (default 5 MiB: a note that size is a dump, not a note). */
  maxFileBytes?: number;
  /**
   * Hosts with an event loop to keep responsive (the editor) pass a budget in ms: the scan then yields to the
   * event loop whenever it has worked that long, and commits in smaller batches so no single step runs long.
   */
  yieldEveryMs?: number;
  /** Withdraws the staleness update that follows the scan (its git processes are killed). */
  signal?: AbortSignal;
  /** false: parse on the scanning thread even for a large scan; true: use the worker for any scan (tests). */
  parseWorker?: boolean;
  /** The worker to use instead of the process's shared one (tests: one whose script fails). */
  parseWorkerPool?: ParseWorker;
}

interface Known {
  mtimeMs: number;
  size: number;
  hash: string;
}

const BATCH = 400;
/**
 * Files kept requested from the parse worker ahead of the one being written: three write batches. A batch is
 * committed in one synchronous transaction, during which no request can be posted; with 300 ahead (before
 * 2026-12-06) the worker ran dry in every commit and the writer then waited for it — 190 of a 5,000-note cold
 * index's ~650 ms, against ~85 ms with this lead (bench/lib/coldIndex.ts, native engine; +12 % docs/s on both).
 */
const WORKER_LEAD_JOBS = 3 * BATCH;
/** Batch size when yielding: ~100 notes of parse + insert stay well under a frame budget's worth of work. */
const SMALL_BATCH = 50;
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
/** From this many files to read on, a scan parses them in a worker thread (parsePool.ts; see parseWorkerWanted). */
export const PARSE_WORKER_MIN_FILES = 1500;

/**
 * Whether this scan's files go through the parse worker. Only for many files: a worker is a second Node
 * environment to start (~30 ms on this 2-core machine), which a whole `k0maru scan` process recovers from about
 * 1,500 files on (measured against parsing in-thread: +25–35 ms at 300 files, +10 at 1,000, −5 to −40 at 2,000,
 * −70 to −150 at 5,000). Only with a second core to run it; `K0MARU_PARSE_WORKER=0` turns it off (benches compare
 * both ways). `parseWorker: true` uses it whatever the count (tests).
 */
function parseWorkerWanted(opts: ScanOptions, files: number): boolean {
  if (opts.parseWorker !== undefined) return opts.parseWorker;
  return files >= PARSE_WORKER_MIN_FILES && process.env.K0MARU_PARSE_WORKER !== '0' && availableParallelism() > 1;
}

/**
 * The three-tier incremental scanner: (1) presence in an in-memory map warmed from the index, (2) mtime + size
 * from the one stat the walk already made, (3) xxh3-64 of the bytes. A touch without an edit costs one read and
 * one hash and updates the stored mtime only. The map is re-warmed when another process changed the index
 * (meta.generation), so several processes sharing a vault stay correct without redundant re-parsing.
 */
export class IncrementalScanner {
  private known: Map<string, Known> | undefined;
  private knownGeneration = -1;
  /** The index file's mtime+size when `knownGeneration` was read: while it holds, no process wrote anything. */
  private knownStamp = '';

  /**
   * `notes`: the notes folder alone (symlinks followed only inside it), or the project's note sources — a function
   * so folders created later (`docs/adr/`) are picked up by the next scan (see src/core/vault/noteSources.ts).
   */
  constructor(
    private readonly idx: IndexDb,
    private readonly notes: string | (() => NoteSource[]),
  ) {}

  /** The vault's `exclude` globs come with its source (noteSources reads them from the config). */
  private sources(): NoteSource[] {
    return typeof this.notes === 'string' ? [{ root: this.notes, prefix: '', boundary: this.notes, exclude: [] }] : this.notes();
  }

  async scan(opts: ScanOptions = {}): Promise<ScanReport> {
    const t0 = performance.now();
    const maxBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const known = this.warm();
    const { files, skipped } = listSourceNotes(this.sources(), { stat: true });
    const report: ScanReport = { added: 0, modified: 0, touched: 0, unchanged: 0, deleted: 0, skipped, warnings: [], total: 0, durationMs: 0, changedPaths: [], deletedPaths: [] };

    type Pending = { kind: 'upsert'; rec: PreparedRecord } | { kind: 'touch'; rel: string; mtimeMs: number; size: number; hash: string };
    let pending: Pending[] = [];
    const seen = new Set<string>();
    const commit = () => {
      if (!pending.length) return;
      const batch = pending;
      pending = [];
      this.idx.write(() => {
        const w = new DocumentWriter(this.idx);
        try {
          for (const p of batch) {
            if (p.kind === 'touch') w.touch(p.rel, p.mtimeMs, p.size);
            else w.write(p.rec);
          }
        } catch (err) {
          w.abandon();
          throw err;
        }
        w.finalize();
        this.bumpGeneration();
      });
      for (const p of batch) {
        const { path, mtimeMs, size, hash } = p.kind === 'upsert' ? p.rec : { ...p, path: p.rel };
        known.set(path, { mtimeMs, size, hash });
      }
    };

    // First tiers for every file (presence, then mtime + size), settled at once; the files left to read are collected
    // so their number is known before any is read. A clean scan allocates nothing per file here.
    let done = 0;
    const progressEvery = Math.max(50, Math.floor(files.length / 100));
    const tick = () => {
      done++;
      if (opts.onProgress && done % progressEvery === 0) opts.onProgress({ done, total: files.length });
    };
    const toRead: { rel: string; mtimeMs: number; size: number; prev: Known | undefined }[] = [];
    const jobs: FileJob[] = [];
    for (const file of files) {
      const prev = known.get(file.path);
      const { mtimeMs, size } = file.stat!;
      if (prev && prev.mtimeMs === mtimeMs && prev.size === size) {
        seen.add(file.path);
        report.unchanged++;
        tick();
      } else if (size > maxBytes) {
        skipped.push({ path: file.path, reason: `too large (${size} bytes > ${maxBytes})` });
        tick(); // not "seen": an indexed note that grew past the limit leaves the index
      } else {
        toRead.push({ rel: file.path, mtimeMs, size, prev });
        jobs.push({ abs: file.abs, rel: file.path, prevHash: prev?.hash, readLimit: maxBytes + 1 });
      }
    }
    // Many files to read and parse: a worker thread does that while this one writes SQLite (issue 17).
    const worker = parseWorkerWanted(opts, jobs.length) ? (opts.parseWorkerPool ?? sharedParseWorker()) : undefined;
    const outcomes = new OutcomeStream(jobs, worker, WORKER_LEAD_JOBS, (err) => this.idx.log('warn', `scan: ${err.message}; parsing the remaining notes on the scanning thread`));

    const batchSize = opts.yieldEveryMs ? SMALL_BATCH : BATCH;
    let lastYield = performance.now();
    const maybeYield = async () => {
      if (!opts.yieldEveryMs || performance.now() - lastYield < opts.yieldEveryMs) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    };
    for (const { rel, mtimeMs, size, prev } of toRead) {
      tick();
      const outcome = await outcomes.next();
      if (outcome.kind === 'unreadable') {
        skipped.push({ path: rel, reason: outcome.reason });
        if (prev) seen.add(rel); // keep what we had: the file is still there, we just cannot read it now
        continue;
      }
      if (outcome.kind === 'binary') {
        skipped.push({ path: rel, reason: 'binary content (NUL bytes)' });
        continue;
      }
      seen.add(rel);
      if (outcome.kind === 'touch') {
        report.touched++;
        pending.push({ kind: 'touch', rel, mtimeMs, size, hash: outcome.hash });
      } else {
        for (const w of outcome.warnings) report.warnings.push({ path: rel, ...w });
        if (prev) report.modified++;
        else report.added++;
        report.changedPaths.push(rel);
        pending.push({ kind: 'upsert', rec: { path: rel, hash: outcome.hash, mtimeMs, size, doc: outcome.doc } });
      }
      if (pending.length >= batchSize) commit();
      await maybeYield();
    }
    commit();
    if (worker) report.parseWorker = { ...outcomes.workerUse };

    // Every file seen is in `known` by now, so equal sizes mean nothing was deleted (no O(n) key walk then).
    const gone = known.size === seen.size ? [] : [...known.keys()].filter((p) => !seen.has(p));
    const pendingWrites = report.added + report.modified + report.touched + gone.length > 0;
    if (gone.length) {
      this.idx.write(() => {
        const w = new DocumentWriter(this.idx);
        try {
          for (const p of gone) w.remove(p);
        } catch (err) {
          w.abandon();
          throw err;
        }
        w.finalize();
        this.bumpGeneration();
      });
      for (const p of gone) known.delete(p);
      report.deleted = gone.length;
      report.deletedPaths = gone;
    }
    if (report.added || report.modified || report.deleted) {
      resolveLinks(this.idx);
    }
    if (pendingWrites) {
      this.knownStamp = this.idx.fileStamp();
      this.knownGeneration = this.generation();
    }
    report.total = known.size;
    report.durationMs = performance.now() - t0;
    opts.onProgress?.({ done: files.length, total: files.length });
    return report;
  }

  private generation(): number {
    const row = this.idx.get("SELECT value FROM meta WHERE key = 'generation'");
    return row ? Number(row.value) : 0;
  }

  private bumpGeneration(): void {
    this.idx.run("INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1");
  }

  private warm(): Map<string, Known> {
    // A stat of the index file answers "did anyone write?" without a query (and its lock round trip).
    const stamp = this.idx.fileStamp();
    if (this.known && stamp === this.knownStamp) return this.known;
    this.knownStamp = stamp;
    const gen = this.generation();
    if (this.known && gen === this.knownGeneration) return this.known;
    const map = new Map<string, Known>();
    // One JSON text instead of a row per note: node-sqlite3-wasm crosses into WASM once per column of every row,
    // which made this query ~60 ms of a one-shot scan of 5,000 notes; SQLite writes REALs in JSON with 17
    // significant digits, so mtime_ms comes back as the exact double that was stored (issue 17).
    const rows = JSON.parse(String(this.idx.get('SELECT json_group_array(json_array(path, mtime_ms, size, hash)) AS j FROM documents')?.j ?? '[]')) as [string, number, number, string][];
    for (const [path, mtimeMs, size, hash] of rows) map.set(path, { mtimeMs, size, hash });
    this.known = map;
    this.knownGeneration = gen;
    return map;
  }
}
