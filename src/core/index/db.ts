import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { isK0Error, K0Error } from '../errors';
import { anotherHandleMayHoldFile } from './lockHolders';
import { asideName, headerLooksSound, pruneAsideCopies, secureIndexFiles } from './indexFiles';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema';
import type { EngineDb, EngineName, EngineStatement, SqliteEngine } from './engine';
import { withIndexLock } from './engineNative';
import { engine, isBusy, isCorrupt, isIoFailure, isSqliteError, isVtabBusy } from './sqliteEngine';

export type Row = Record<string, number | bigint | string | Uint8Array | null>;
export type Logger = (level: 'info' | 'warn' | 'error', message: string) => void;
type Params = unknown[] | undefined;

/**
 * node-sqlite3-wasm locks with an exclusive `<db>.lock` directory for any access (reads included) and has no
 * WAL, so every other process sees SQLITE_BUSY while one holds it. We keep transactions short (the scanner commits
 * in batches) and retry with back-off — every access, not only writes: a schema `exec` or a `prepare` reads the
 * schema and can meet the lock too. A `.lock` directory older than STALE_LOCK_MS was left by a killed process:
 * no live writer holds the lock that long, so it is removed. On Linux a lock older than ORPHAN_LOCK_GRACE_MS that no
 * live process can be holding (nobody else has the file open: lockHolders.ts) is removed at once, so a SIGKILLed
 * scan costs the next process seconds, not STALE_LOCK_MS. A holder in another PID namespace sharing the folder
 * (a container) is invisible to that check; it is covered only while its transactions stay shorter than the grace.
 */
const STALE_LOCK_MS = 15_000;
/** A lock younger than this is never judged orphaned: the holder check runs only for locks that outlive a busy moment. */
const ORPHAN_LOCK_GRACE_MS = 3_000;
const HOLDER_CHECK_EVERY_MS = 250;
const KEEP_ACROSS_SCHEMAS = new Set(['vectors', 'vector_models']);
const DEFAULT_BUSY_TIMEOUT_MS = 20_000;
/**
 * Longest sleep between attempts. Short on purpose: a writer that holds the lock 300 ms out of every 315 ms leaves
 * 15 ms windows, and a waiter that sleeps longer than a window keeps missing them. An attempt costs one mkdir.
 */
const MAX_BACKOFF_MS = 8;

const sleepBuf = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepBuf, 0, 0, ms);
}

export interface IndexOpenOptions {
  /** How long one access waits for another process's lock before INDEX_BUSY (default 20 s). */
  busyTimeoutMs?: number;
  /** Run `PRAGMA quick_check` on open even when the header looks sound (long-lived hosts can afford it once). */
  quickCheck?: boolean;
  /** Told each time this handle moves a damaged file aside and starts an empty index (the warning it logged). */
  onRebuild?(message: string): void;
}

/** A prepared statement whose calls retry like the rest of IndexDb (outside a transaction; inside one the lock is held). */
export interface IndexStatement {
  run(params?: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(params?: unknown[]): Row | null;
  all(params?: unknown[]): Row[];
  finalize(): void;
}

/**
 * The one door to the index file: every query, statement and transaction goes through `retry`, which waits out
 * other processes' locks (INDEX_BUSY when it outlasts the budget) and turns SQLITE_CORRUPT / SQLITE_NOTADB into a
 * heal — the file is moved aside and an empty index takes its place, refilled from the Markdown by the next scan.
 */
export class IndexDb {
  private db!: EngineDb;
  /** node-sqlite3-wasm or node:sqlite (sqliteEngine.ts); both honour the `<db>.lock` directory (engine.ts). */
  private readonly engine: SqliteEngine = engine();
  /** > 0 while `write()` runs its callback: this process holds the lock, so inner calls do not retry on their own. */
  private depth = 0;
  private readonly statements = new Set<{ finalized: boolean; stmt: EngineStatement }>();
  private readonly busyTimeoutMs: number;
  private readonly onRebuild: ((message: string) => void) | undefined;
  private lastHolderCheck = 0;
  /** While opening, corruption is handled by connect() itself (move aside once, reopen), not by heal(). */
  private connecting = false;
  /** The inode this handle reads: when the path names another file (a process healed it, a person deleted it), we follow. */
  private inode = -1;
  /** How many times this handle found the file corrupt and replaced it (status, tests). */
  rebuilds = 0;

  private constructor(
    readonly path: string,
    readonly log: Logger,
    opts: IndexOpenOptions,
  ) {
    this.busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.onRebuild = opts.onRebuild;
  }

  /**
   * Opens (or creates) the index. Index files that are not plain files are moved aside unfollowed; a corrupt file,
   * an emptied one or one with another schema version is replaced and rebuilt from the Markdown by the next scan,
   * with a warning: the index is a cache, Markdown is the source of truth.
   */
  static open(path: string, log: Logger = () => {}, opts: IndexOpenOptions = {}): IndexDb {
    mkdirSync(dirname(path), { recursive: true });
    const idx = new IndexDb(path, log, opts);
    idx.connect(opts.quickCheck ?? false);
    return idx;
  }

  private connect(quickCheck: boolean): void {
    this.connecting = true;
    try {
      this.connectOnce(quickCheck);
    } finally {
      this.connecting = false;
    }
  }

  private connectOnce(quickCheck: boolean): void {
    for (const line of secureIndexFiles(this.path).moved) this.log('warn', `index: ${line}`);
    const header = headerLooksSound(this.path);
    if (header.ok && header.empty) {
      this.log('warn', `index ${this.path} was empty (truncated to zero bytes); rebuilding it from Markdown`);
    }
    for (let attempt = 0; ; attempt++) {
      try {
        this.db = this.engine.open(this.path);
        this.inode = inodeOf(this.path);
        if (!header.ok || quickCheck) this.quickCheck(header.ok ? 'checked on open' : header.reason);
        this.ensureSchema();
        return;
      } catch (err) {
        this.closeHandle();
        const corrupt = isCorrupt(err) || (isK0Error(err) && err.code === 'INDEX_CORRUPT' && err.data?.check === 'quick_check');
        if (attempt === 0 && corrupt) {
          const aside = this.moveAside();
          const message = `index ${this.path} is unreadable (${(err as Error).message}); moved to ${aside} and rebuilding from Markdown`;
          this.log('warn', message);
          this.rebuilds++;
          this.onRebuild?.(message);
          continue;
        }
        if (isK0Error(err)) throw err;
        if (isIoFailure(err)) throw new K0Error('IO_ERROR', `cannot open index ${this.path}: ${(err as Error).message}`);
        throw new K0Error('INDEX_CORRUPT', `cannot open index ${this.path}: ${(err as Error).message}`);
      }
    }
  }

  /** Throws INDEX_CORRUPT (data.check = 'quick_check') unless SQLite's quick_check passes. */
  private quickCheck(why: string): void {
    let problems: string[];
    try {
      const rows = this.retry(() => this.db.all('PRAGMA quick_check(5)') as Row[]);
      problems = rows.map((r) => String(Object.values(r)[0])).filter((s) => s !== 'ok');
    } catch (err) {
      if (!isCorrupt(err)) throw err;
      problems = [(err as Error).message];
    }
    if (problems.length) throw new K0Error('INDEX_CORRUPT', `quick_check (${why}): ${problems.join('; ')}`, { check: 'quick_check' });
  }

  private ensureSchema(): void {
    this.write(() => {
      // Rollback journal, never WAL: node-sqlite3-wasm has no shared memory, and both engines must read the file.
      // node:sqlite gets a page cache of up to 64 MiB (SQLite's default is 2 MiB): a 400-note batch of a cold
      // index stops spilling pages mid-transaction (-10 to -25 % CPU for 5,000 notes, bench/lib/coldIndex.ts).
      this.db.exec(`PRAGMA journal_mode=TRUNCATE; PRAGMA synchronous=OFF; PRAGMA foreign_keys=ON;${this.engine.name === 'native' ? ' PRAGMA cache_size=-65536;' : ''}`);
    }, false);
    // The header's user_version is stamped in the same transaction as a completed setup of this SCHEMA_VERSION:
    // when it matches, the file holds every table and there is nothing to create or look up (one header read
    // instead of a sqlite_master lookup and a meta query on every one-shot process). A new, emptied, healed or
    // older file reads 0 or another number and takes the full path below.
    if (Number(this.get('PRAGMA user_version')?.user_version) === SCHEMA_VERSION) return;
    const hasMeta = this.get("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'");
    if (hasMeta) {
      const v = this.get("SELECT value FROM meta WHERE key='schema_version'");
      if (v && Number(v.value) === SCHEMA_VERSION) {
        // Set up by a build that did not stamp the header yet: stamp it, so the next open takes the fast path.
        this.write(() => this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`));
        return;
      }
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
      this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    });
  }

  /**
   * Runs `fn` inside a write transaction (BEGIN IMMEDIATE … COMMIT), retrying while another process holds the lock.
   * Nested calls join the transaction already open.
   */
  write<T>(fn: () => T, transaction = true): T {
    if (this.depth > 0 || !transaction) return this.retry(fn);
    return this.transaction('BEGIN IMMEDIATE', fn);
  }

  /**
   * Runs the reads of `fn` in one read transaction (BEGIN … COMMIT): the `.lock` directory is taken and dropped once
   * instead of once per statement, and SQLite keeps its page cache between them instead of re-reading and
   * re-validating it. A recall makes 5–7 statements; on this machine each lock round trip (mkdir + rmdir) and
   * re-read cost ~0.4 ms. `fn` must be synchronous and short: other processes wait while it runs.
   */
  read<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    return this.transaction('BEGIN', fn);
  }

  private transaction<T>(begin: string, fn: () => T): T {
    return this.retry(() => {
      this.db.exec(begin);
      this.depth++;
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
      } finally {
        this.depth--;
      }
    });
  }

  all(sql: string, params?: Params): Row[] {
    return this.retry(() => this.db.all(sql, params as never) as Row[]);
  }

  get(sql: string, params?: Params): Row | null {
    return this.retry(() => this.db.get(sql, params as never) as Row | null);
  }

  run(sql: string, params?: Params): { changes: number; lastInsertRowid: number | bigint } {
    return this.retry(() => this.db.run(sql, params as never));
  }

  exec(sql: string): void {
    this.retry(() => this.db.exec(sql));
  }

  /** Prepared statement for hot loops (usually inside `write()`); the caller must finalize it. */
  prepare(sql: string): IndexStatement {
    const entry = { finalized: false, stmt: this.retry(() => this.db.prepare(sql)) };
    this.statements.add(entry);
    const live = () => {
      if (entry.finalized) throw new K0Error('INDEX_CORRUPT', `index ${this.path} was replaced while a statement was in use`);
      return entry.stmt;
    };
    // After a step failed (SQLITE_BUSY), SQLite's reset reports that failure once more, and node-sqlite3-wasm turns
    // it into "Could not reset statement": that reset did clear it, so the call is simply made again.
    const call = <T>(f: (s: EngineStatement) => T): T =>
      this.retry(() => {
        try {
          return f(live());
        } catch (err) {
          if (isSqliteError(err) && /could not reset statement/i.test(err.message)) return f(live());
          throw err;
        }
      });
    return {
      run: (params) => call((s) => s.run(params as never)),
      // node-sqlite3-wasm's get() leaves the statement stepped but not reset, and a statement that is not reset keeps
      // SQLite's read lock — the `.lock` directory — until its next use: every other process then waits. all()
      // steps to SQLITE_DONE, which releases it (our prepared reads return one row).
      get: (params) => call((s) => ((s.all(params as never) as Row[])[0] ?? null)),
      all: (params) => call((s) => s.all(params as never) as Row[]),
      finalize: () => {
        if (entry.finalized) return;
        entry.finalized = true;
        this.statements.delete(entry);
        entry.stmt.finalize();
      },
    };
  }

  /**
   * Every access lands here. Inside a transaction the lock is ours: errors go straight up so the transaction
   * rolls back and retries (or heals) as a whole.
   */
  private retry<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    if (!this.connecting) this.followReplacement();
    const start = Date.now();
    let delay = 1;
    const seen = { lock: false };
    for (let attempt = 0; ; attempt++) {
      try {
        return this.engine.locksItself ? fn() : withIndexLock(`${this.path}.lock`, fn);
      } catch (err) {
        if (!isBusy(err) && !isVtabBusy(err, `${this.path}.lock`, attempt, seen)) throw this.connecting ? err : this.classify(err);
        if (this.recoverStaleLock()) continue;
        const waited = Date.now() - start;
        if (waited > this.busyTimeoutMs) {
          throw new K0Error('INDEX_BUSY', `index ${this.path} stayed locked by another process for ${waited} ms`, { waitedMs: waited });
        }
        sleepSync(delay * (0.5 + Math.random()));
        delay = Math.min(delay * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** Gives a raw SQLite error its code; a corrupt file is replaced on the spot so the next scan can refill it. */
  private classify(err: unknown): unknown {
    if (isK0Error(err) || !isSqliteError(err)) return err;
    if (isCorrupt(err)) return this.heal((err as Error).message);
    if (isIoFailure(err)) return new K0Error('IO_ERROR', `index ${this.path}: ${err.message}`);
    return err;
  }

  /**
   * One stat per top-level access: when another process healed the index (or someone deleted it to force a rebuild),
   * the path names a new file and this handle would otherwise keep reading and writing the old one, unseen by all.
   */
  private followReplacement(): void {
    if (inodeOf(this.path) === this.inode) return;
    this.log('info', `index ${this.path} was replaced by another process; reopening it`);
    this.closeHandle();
    this.connect(false);
  }

  private heal(reason: string): K0Error {
    // Two processes can meet the same damage: only the first moves the file; the second finds a fresh one in its place.
    const replaced = inodeOf(this.path) !== this.inode;
    this.closeHandle();
    const aside = replaced ? undefined : this.moveAside();
    const before = this.rebuilds;
    this.connect(false);
    // connect() counts a replacement it had to move aside itself; this heal counts once either way.
    this.rebuilds = before + 1;
    // A scanner that warmed its map from the old file must notice that this is another index.
    this.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('generation', ?)", [String(Date.now())]);
    const where = aside ? `moved to ${aside}` : 'another process had already moved it aside';
    const message = `index ${this.path} is corrupt (${reason}); ${where} and replaced by an empty index that the next scan refills from Markdown`;
    this.log('warn', message);
    this.onRebuild?.(message);
    return new K0Error('INDEX_CORRUPT', message, { rebuilt: true, movedTo: aside });
  }

  /**
   * For a caller that met INDEX_CORRUPT without a rebuild (a statement outlived a heal, a reopen failed): makes sure
   * this handle reads a sound file — reopens a broken handle, runs quick_check, and heals when it fails. Returns
   * whether the file was replaced.
   */
  checkAndHeal(): boolean {
    const before = this.rebuilds;
    if (!this.db?.isOpen) {
      this.connect(true);
      return this.rebuilds > before;
    }
    try {
      this.quickCheck('after a corrupt read');
    } catch (err) {
      if (!isK0Error(err) || err.code !== 'INDEX_CORRUPT') throw err;
      // A corrupt page met by quick_check itself is healed on the way (retry → classify); heal only once.
      if (this.rebuilds === before) this.heal(err.message);
    }
    return this.rebuilds > before;
  }

  /** Moves the database aside (and drops its journal, which belongs to the old file); returns where it went. */
  private moveAside(): string {
    const aside = asideName(this.path, Date.now());
    try {
      renameSync(this.path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // secureIndexFiles checked the journal is a plain file: removing it cannot reach outside .k0maru/.
    if (!lstatOrNull(`${this.path}-journal`)?.isSymbolicLink()) rmSync(`${this.path}-journal`, { force: true });
    pruneAsideCopies(this.path);
    return aside;
  }

  private closeHandle(): void {
    for (const s of this.statements) {
      s.finalized = true;
      try {
        s.stmt.finalize();
      } catch {
        /* the handle is going away */
      }
    }
    this.statements.clear();
    try {
      if (this.db?.isOpen) this.db.close();
    } catch {
      /* already broken */
    }
  }

  private recoverStaleLock(): boolean {
    const lock = `${this.path}.lock`;
    try {
      const st = lstatSync(lock);
      const now = Date.now();
      const age = now - st.mtimeMs;
      // Only ever a real directory (secureIndexFiles moved anything else aside): rmSync never follows a link here.
      if (!st.isDirectory()) return false;
      let why: string;
      if (age >= STALE_LOCK_MS) why = `${Math.round(age / 1000)} s old`;
      else if (age >= ORPHAN_LOCK_GRACE_MS && now - this.lastHolderCheck >= HOLDER_CHECK_EVERY_MS) {
        // A killed scan's lock would block every other process for STALE_LOCK_MS; where the OS tells who holds the
        // file open (Linux /proc), a lock nobody can be holding is removed at once.
        this.lastHolderCheck = now;
        if (anotherHandleMayHoldFile(this.path) !== false) return false;
        why = 'no live process has the index open';
      } else return false;
      rmSync(lock, { recursive: true, force: true });
      this.log('warn', `removed a stale index lock left by a killed process (${why})`);
      return true;
    } catch {
      return false;
    }
  }

  /** Changes whenever any process writes the index (mtime in ns + size): a cheap "anything new?" check. */
  fileStamp(): string {
    try {
      const st = statSync(this.path, { bigint: true });
      return `${st.ino}:${st.mtimeNs}:${st.size}`;
    } catch {
      return '';
    }
  }

  close(): void {
    this.closeHandle();
  }

  /** Which SQLite this handle runs on. */
  get engineName(): EngineName {
    return this.engine.name;
  }

  static exists(path: string): boolean {
    return existsSync(path);
  }
}

function inodeOf(p: string): number {
  try {
    return statSync(p).ino;
  } catch {
    return -1;
  }
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
