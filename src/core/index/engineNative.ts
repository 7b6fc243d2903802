import { mkdirSync, rmdirSync } from 'node:fs';
import type { Row } from './db';
import type { EngineDb, EngineStatement, SqliteEngine } from './engine';

/**
 * Node's built-in SQLite (`node:sqlite`, unflagged from Node 22.13; SQLite 3.5x with FTS5 and bm25()). It locks
 * with POSIX advisory locks, which node-sqlite3-wasm neither takes nor sees — so on its own it would read pages a
 * WASM process is writing, or roll back the journal of a WASM transaction in flight as if it were hot. IndexDb
 * therefore wraps every access of this engine in `withIndexLock` (the same `<db>.lock` directory the WASM VFS
 * takes), and the journal stays a rollback journal (TRUNCATE, set by IndexDb), which both engines read.
 */

/** The subset of node:sqlite we use (@types/node 20 does not describe it). */
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  all(...params: unknown[]): Row[];
}
interface NodeDatabase {
  exec(sql: string): void;
  prepare(sql: string): NodeStatement;
  close(): void;
  readonly isTransaction?: boolean;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, opts?: { readOnly?: boolean; timeout?: number; enableForeignKeyConstraints?: boolean }) => NodeDatabase;
}

let loaded: NodeSqliteModule | null | undefined;

/**
 * node:sqlite when this runtime has it unflagged, else null. process.getBuiltinModule (Node ≥ 20.16 / 22.3) needs
 * no bundler support and answers undefined where the module does not exist (Node 20, Electron's Node 20 in VS Code
 * 1.100). Loading it prints an ExperimentalWarning on stderr; that one warning is kept off a CLI's or hook's stderr.
 */
export function loadNativeSqlite(): NodeSqliteModule | null {
  if (loaded !== undefined) return loaded;
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof get !== 'function') return (loaded = null);
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning?.message;
    if (/SQLite is an experimental feature/i.test(String(text))) return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    const mod = get.call(process, 'node:sqlite') as NodeSqliteModule | undefined;
    loaded = mod && typeof mod.DatabaseSync === 'function' ? mod : null;
  } catch {
    loaded = null; // Node 22.5–22.12 without --experimental-sqlite
  } finally {
    process.emitWarning = emit;
  }
  return loaded;
}

/**
 * Parameters as node-sqlite3-wasm bound them: node:sqlite binds every JS number as a REAL (1 would be stored in a
 * TEXT column as '1.0') and refuses booleans, so whole numbers go in as 64-bit integers and booleans as 0/1.
 */
function bindable(params: unknown[] | undefined): unknown[] {
  if (!params) return [];
  return params.map(bindOne);
}
function bindOne(p: unknown): unknown {
  if (typeof p === 'number') return Number.isSafeInteger(p) ? BigInt(p) : p;
  if (typeof p === 'boolean') return p ? 1n : 0n;
  return p === undefined ? null : p;
}
function runResult(r: { changes: number | bigint; lastInsertRowid: number | bigint }) {
  return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
}

class NativeDb implements EngineDb {
  private open_ = true;
  private txTracked = false;
  constructor(private readonly db: NodeDatabase) {}
  exec(sql: string): void {
    this.db.exec(sql);
    // node:sqlite < 22.16 has no isTransaction: follow our own BEGIN/COMMIT/ROLLBACK (IndexDb issues them alone).
    if (/^\s*BEGIN\b/i.test(sql)) this.txTracked = true;
    else if (/^\s*(COMMIT|ROLLBACK|END)\b/i.test(sql)) this.txTracked = false;
  }
  all(sql: string, params?: unknown[]): Row[] {
    return this.db.prepare(sql).all(...bindable(params));
  }
  get(sql: string, params?: unknown[]): Row | null {
    return this.all(sql, params)[0] ?? null;
  }
  run(sql: string, params?: unknown[]) {
    return runResult(this.db.prepare(sql).run(...bindable(params)));
  }
  prepare(sql: string): EngineStatement {
    const stmt = this.db.prepare(sql);
    let finalized = false;
    const live = () => {
      if (finalized) throw new Error('statement already finalized');
      return stmt;
    };
    // node:sqlite resets a statement after every run()/all(), so none holds a read lock between calls; it frees
    // statements with the database or on garbage collection (there is no finalize before Node 24).
    return {
      run: (params) => runResult(live().run(...bindable(params))),
      all: (params) => live().all(...bindable(params)),
      finalize: () => {
        finalized = true;
      },
    };
  }
  get inTransaction(): boolean {
    return typeof this.db.isTransaction === 'boolean' ? this.db.isTransaction : this.txTracked;
  }
  get isOpen(): boolean {
    return this.open_;
  }
  close(): void {
    if (!this.open_) return;
    this.open_ = false;
    this.db.close();
  }
}

export const nativeEngine: SqliteEngine = {
  name: 'native',
  locksItself: false,
  open(path, opts) {
    const mod = loadNativeSqlite();
    if (!mod) throw new Error('node:sqlite is not available in this runtime');
    // timeout 0: POSIX lock waits never happen while the `.lock` directory serialises access; IndexDb retries.
    return new NativeDb(new mod.DatabaseSync(path, { readOnly: opts?.readOnly ?? false, timeout: 0, enableForeignKeyConstraints: true }));
  },
  isSqliteError: (err): err is Error => err instanceof Error && (err as { code?: unknown }).code === 'ERR_SQLITE_ERROR',
};

/** Thrown when another process holds `<db>.lock`; IndexDb treats it as SQLITE_BUSY (wait, recover stale locks). */
export class IndexLockBusy extends Error {
  constructor(lockPath: string) {
    super(`database is locked (${lockPath} is held by another process)`);
    this.name = 'IndexLockBusy';
  }
}

/**
 * Runs `fn` holding `<db>.lock` exactly as node-sqlite3-wasm's VFS does: mkdir succeeds for one process at a time
 * (EEXIST → IndexLockBusy), rmdir releases. The database file is open before the lock is taken and stays open
 * until after it is released, so the orphan check (lockHolders.ts: a lock nobody holding the file can own) reads
 * a native holder exactly like a WASM one.
 */
export function withIndexLock<T>(lockPath: string, fn: () => T): T {
  try {
    mkdirSync(lockPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new IndexLockBusy(lockPath);
    throw err;
  }
  try {
    return fn();
  } finally {
    try {
      rmdirSync(lockPath);
    } catch (err) {
      // ENOENT: another process judged our lock stale and removed it (only after STALE_LOCK_MS of holding).
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
