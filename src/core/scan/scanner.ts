import type { IndexDb } from '../index/db';
import { DocumentWriter } from '../index/store';
import { resolveLinks } from '../index/links';
import type { ParsedNote } from '../vault/markdown';
import type { SkippedFile } from '../vault/noteFiles';
import { listSourceNotes, readRegularFile, type NoteSource } from '../vault/noteSources';
import { loadHasher } from './hash';

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
}

interface Known {
  mtimeMs: number;
  size: number;
  hash: string;
}

const BATCH = 400;
/** Batch size when yielding: ~100 notes of parse + insert stay well under a frame budget's worth of work. */
const SMALL_BATCH = 50;
export const DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Lenient = new TextDecoder('utf-8');

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
    // The xxh3 WASM is only needed once a file's mtime moved: a clean scan never loads it.
    let hasher: ((data: Uint8Array | string) => string) | undefined;
    const hash = (data: Uint8Array | string) => hasher!(data);
    // markdown-it and js-yaml (~310 KB of JavaScript) are loaded with the first note that must be parsed: a clean
    // scan, the only kind most one-shot processes run, never parses one (issue 17).
    let parseNote: typeof import('../vault/markdown').parseNote | undefined;
    const maxBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const known = this.warm();
    const { files, skipped } = listSourceNotes(this.sources(), { stat: true });
    const report: ScanReport = { added: 0, modified: 0, touched: 0, unchanged: 0, deleted: 0, skipped, warnings: [], total: 0, durationMs: 0, changedPaths: [], deletedPaths: [] };

    type Pending = { kind: 'upsert'; rel: string; mtimeMs: number; size: number; hash: string; note: ParsedNote; warnings: string[] } | { kind: 'touch'; rel: string; mtimeMs: number; size: number };
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
            else w.upsert({ path: p.rel, hash: p.hash, mtimeMs: p.mtimeMs, size: p.size, note: p.note, warnings: p.warnings }, hash);
          }
        } catch (err) {
          w.abandon();
          throw err;
        }
        w.finalize();
        this.bumpGeneration();
      });
      for (const p of batch) {
        const prev = known.get(p.rel);
        known.set(p.rel, { mtimeMs: p.mtimeMs, size: p.size, hash: p.kind === 'upsert' ? p.hash : prev!.hash });
      }
    };

    const batchSize = opts.yieldEveryMs ? SMALL_BATCH : BATCH;
    let lastYield = performance.now();
    const maybeYield = async () => {
      if (!opts.yieldEveryMs || performance.now() - lastYield < opts.yieldEveryMs) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    };
    let done = 0;
    const progressEvery = Math.max(50, Math.floor(files.length / 100));
    for (const f of files) {
      done++;
      if (opts.onProgress && done % progressEvery === 0) opts.onProgress({ done, total: files.length });
      const rel = f.path;
      const prev = known.get(rel);
      const { mtimeMs, size } = f.stat!;
      if (prev && prev.mtimeMs === mtimeMs && prev.size === size) {
        seen.add(rel);
        report.unchanged++;
        continue;
      }
      if (size > maxBytes) {
        skipped.push({ path: rel, reason: `too large (${size} bytes > ${maxBytes})` });
        continue; // not "seen": an indexed note that grew past the limit leaves the index
      }
      let bytes: Buffer;
      try {
        // Never blocks: a FIFO swapped in after the walk is refused by fstat, not read.
        bytes = readRegularFile(f.abs, maxBytes + 1);
      } catch (err) {
        skipped.push({ path: rel, reason: `unreadable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
        if (prev) seen.add(rel); // keep what we had: the file is still there, we just cannot read it now
        continue;
      }
      if (bytes.subarray(0, 8192).includes(0)) {
        skipped.push({ path: rel, reason: 'binary content (NUL bytes)' });
        continue;
      }
      seen.add(rel);
      hasher ??= await loadHasher();
      const digest = hash(bytes);
      if (prev && prev.hash === digest) {
        report.touched++;
        pending.push({ kind: 'touch', rel: rel, mtimeMs, size });
      } else {
        const warnings: string[] = [];
        let text: string;
        try {
          text = utf8.decode(bytes);
        } catch {
          text = utf8Lenient.decode(bytes);
          warnings.push('1: invalid UTF-8 (undecodable bytes replaced with U+FFFD)');
          report.warnings.push({ path: rel, line: 1, message: 'invalid UTF-8 (undecodable bytes replaced with U+FFFD)' });
        }
        parseNote ??= (await import('../vault/markdown')).parseNote;
        const note = parseNote(text, rel);
        if (note.frontmatterError) {
          const { line, message } = note.frontmatterError;
          warnings.push(`${line}: invalid frontmatter, indexed as body text (${message})`);
          report.warnings.push({ path: rel, line, message: `invalid frontmatter, indexed as body text (${message})` });
        }
        if (prev) report.modified++;
        else report.added++;
        report.changedPaths.push(rel);
        pending.push({ kind: 'upsert', rel: rel, mtimeMs, size, hash: digest, note, warnings });
      }
      if (pending.length >= batchSize) commit();
      await maybeYield();
    }
    commit();

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
