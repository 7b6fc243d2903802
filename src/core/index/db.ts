import { Database, SQLite3Error } from 'node-sqlite3-wasm';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { isK0Error, K0Error } from '../errors';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema';

export type Row = Record<string, number | bigint | string | Uint8Array | null>;
export type Logger = (level: 'info' | 'warn' | 'error', message: string) => void;

/**
 * node-sqlite3-wasm locks with an exclusive `<db>.lock` directory for any access (reads included) and has no
 * WAL, so every other process sees SQLITE_BUSY while one holds it. We keep transactions short (the scanner commits
 * in batches) and retry with back-off. A `.lock` directory older than STALE_LOCK_MS was left by a killed process:
 * no live writer holds the lock that long, so it is removed.
 */
const STALE_LOCK_MS = 15_000;
const KEEP_ACROSS_SCHEMAS = new Set(['vectors', 'vector_models']);
const MAX_WAIT_MS = 20_000;

const sleepBuf = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepBuf, 0, 0, ms);
}

function isBusy(err: unknown): boolean {
  return err instanceof SQLite3Error && /locked|busy/i.test(err.message);
}
function isCorrupt(err: unknown): boolean {
  return err instanceof SQLite3Error && /not a database|malformed|corrupt|disk image/i.test(err.message);
}

export class IndexDb {
  private constructor(
    readonly path: string,
    private db: Database,
    readonly log: Logger,
  ) {}

  /**
   * Opens (or creates) the index. A corrupt file or one with another schema version is moved aside and rebuilt
   * from the Markdown by the next scan, with a warning: the index is a cache, Markdown is the source of truth.
   */
  static open(path: string, log: Logger = () => {}): IndexDb {
    mkdirSync(dirname(path), { recursive: true });
    for (let attempt = 0; ; attempt++) {
      let db: Database | undefined;
      try {
        db = new Database(path);
        const idx = new IndexDb(path, db, log);
        idx.ensureSchema();
        return idx;
      } catch (err) {
        try {
          db?.close();
        } catch {
          /* already broken */
        }
        if (attempt === 0 && (isCorrupt(err) || (isK0Error(err) && err.code === 'INDEX_CORRUPT'))) {
          const aside = `${path}.corrupt-${Date.now()}`;
          log('warn', `index ${path} is unreadable (${(err as Error).message}); moved to ${aside} and rebuilding from Markdown`);
          renameSync(path, aside);
          rmSync(`${path}-journal`, { force: true });
          continue;
        }
        if (isK0Error(err)) throw err;
        throw new K0Error('INDEX_CORRUPT', `cannot open index ${path}: ${(err as Error).message}`);
      }
    }
  }

  private ensureSchema(): void {
    this.write(() => {
      this.db.exec('PRAGMA journal_mode=TRUNCATE; PRAGMA synchronous=OFF; PRAGMA foreign_keys=ON;');
    }, false);
    const hasMeta = this.get("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'");
    if (hasMeta) {
      const v = this.get("SELECT value FROM meta WHERE key='schema_version'");
      if (v && Number(v.value) === SCHEMA_VERSION) return;
      this.log('warn', `index schema ${v?.value ?? '?'} != ${SCHEMA_VERSION}; rebuilding the index from Markdown`);
      this.write(() => {
        const tables = this.db.all("SELECT name, type FROM sqlite_master WHERE type IN ('table') AND name NOT LIKE 'sqlite_%'");
        for (const t of tables) {
          if (String(t.name).includes('_fts_')) continue; // shadow tables go with their virtual table
          // Vectors are keyed by (model, text hash), not by this schema: keep them, re-embedding costs minutes.
          if (KEEP_ACROSS_SCHEMAS.has(String(t.name))) continue;
          this.db.exec(`DROP TABLE IF EXISTS "${String(t.name)}"`);
        }
      });
    }
    this.write(() => {
      this.db.exec(SCHEMA_SQL);
      this.db.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)", [String(SCHEMA_VERSION)]);
    });
  }

  /** Runs `fn` inside a write transaction (BEGIN IMMEDIATE … COMMIT), retrying while another process holds the lock. */
  write<T>(fn: () => T, transaction = true): T {
    return this.retry(() => {
      if (!transaction) return fn();
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const out = fn();
        this.db.exec('COMMIT');
        return out;
      } catch (err) {
        try {
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
        } catch {
          /* the original error matters more */
        }
        throw err;
      }
    });
  }

  all(sql: string, params?: unknown[]): Row[] {
    return this.retry(() => this.db.all(sql, params as never) as Row[]);
  }

  get(sql: string, params?: unknown[]): Row | null {
    return this.retry(() => this.db.get(sql, params as never) as Row | null);
  }

  /** For use inside `write()` only: no retry of its own (the transaction retries as a whole). */
  run(sql: string, params?: unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    return this.db.run(sql, params as never);
  }

  /** Prepared statement for hot loops inside `write()`; the caller must finalize it. */
  prepare(sql: string) {
    return this.db.prepare(sql);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  private retry<T>(fn: () => T): T {
    const start = Date.now();
    let delay = 2;
    for (;;) {
      try {
        return fn();
      } catch (err) {
        if (!isBusy(err)) {
          if (isCorrupt(err)) throw new K0Error('INDEX_CORRUPT', `index ${this.path} is corrupt: ${(err as Error).message}`);
          throw err;
        }
        if (this.recoverStaleLock()) continue;
        if (Date.now() - start > MAX_WAIT_MS) {
          throw new K0Error('INDEX_BUSY', `index ${this.path} stayed locked by another process for ${MAX_WAIT_MS} ms`);
        }
        sleepSync(delay + Math.random() * delay);
        delay = Math.min(delay * 2, 100);
      }
    }
  }

  private recoverStaleLock(): boolean {
    const lock = `${this.path}.lock`;
    try {
      const age = Date.now() - statSync(lock).mtimeMs;
      if (age < STALE_LOCK_MS) return false;
      rmSync(lock, { recursive: true, force: true });
      this.log('warn', `removed a stale index lock left by a killed process (${Math.round(age / 1000)} s old)`);
      return true;
    } catch {
      return false;
    }
  }

  /** Changes whenever any process writes the index (mtime in ns + size): a cheap "anything new?" check. */
  fileStamp(): string {
    try {
      const st = statSync(this.path, { bigint: true });
      return `${st.mtimeNs}:${st.size}`;
    } catch {
      return '';
    }
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  static exists(path: string): boolean {
    return existsSync(path);
  }
}
