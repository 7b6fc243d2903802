import type { Database } from 'node-sqlite3-wasm';
import type { Row } from './db';
import type { EngineDb, EngineStatement, SqliteEngine } from './engine';
import { compileWasmQuickly } from './wasmTier';

/**
 * node-sqlite3-wasm compiles its WASM when the module is first evaluated: loaded on the first open, through
 * compileWasmQuickly (wasmTier.ts), so a one-shot process can skip the TurboFan tier-up of SQLite.
 * Its VFS takes the `<db>.lock` directory itself (mkdir in xLock, rmdir in xUnlock to NONE); its answer to
 * xCheckReservedLock is replaced on load (below), so a hot journal is rolled back.
 */
type SqliteModule = typeof import('node-sqlite3-wasm');
let sqlite: SqliteModule | undefined;
function load(): SqliteModule {
  if (sqlite) return sqlite;
  // A literal require() so esbuild bundles the module while it is still evaluated lazily.
  const evaluate = () => compileWasmQuickly(() => withOwnLockUnreserved(() => require('node-sqlite3-wasm') as SqliteModule));
  let loaded = evaluate();
  if (!reservedLockAnswered) {
    // Evaluated before, outside this hook (a test that reads index files with node-sqlite3-wasm directly): the
    // cached copy's VFS cannot be changed any more, so this engine evaluates its own. Only outside a bundle: in
    // one, node-sqlite3-wasm is the bundle's private copy, reached through this file alone.
    forgetCachedCopy();
    loaded = evaluate();
  }
  if (!reservedLockAnswered) throw new Error(VFS_CHANGED);
  sqlite = loaded;
  return sqlite;
}

/**
 * Why a WASM process could never roll back a hot journal. SQLite plays a rollback journal back only when
 * xCheckReservedLock says no connection holds a RESERVED lock (pager.c hasHotJournal), and it asks only while it
 * holds SHARED itself. node-sqlite3-wasm's VFS has one lock for every level — the `<db>.lock` directory — and
 * answers "reserved" whenever that directory exists: at the moment of asking it always does, because it is the
 * asker's own SHARED lock. So the journal of a writer killed mid-transaction was never played back, and every later
 * WASM process read the pages it had already spilled into the file as if committed (torn rows; integrity_check
 * can still pass). The true answer is "not reserved": a handle that holds the directory is its only holder (the
 * native engine takes the same directory, engineNative.ts), so no other connection is inside a transaction —
 * any journal with content belongs to a dead writer. (Were it ever asked without the lock, a wrong "no" is still
 * harmless: playing back needs an EXCLUSIVE lock, which is the same directory, and mkdir would fail.)
 *
 * The VFS is JavaScript passed to the WASM instance as imports; while the module is evaluated, this swaps the one
 * import that implements xCheckReservedLock for that answer. Emscripten names imports by letters and a minified
 * bundle renames functions, so it is found by what it does: the only VFS function that tests for the `.lock`
 * directory with accessSync (xLock uses mkdirSync, xUnlock rmdirSync, xAccess never names `.lock`).
 * test/unit/core/hotJournal.test.ts kills a writer mid-transaction and checks the next opener sees the old rows.
 */
let reservedLockAnswered = false;
const VFS_CHANGED =
  "node-sqlite3-wasm's VFS changed: its xCheckReservedLock (an accessSync of `<db>.lock`) was not found, so a killed " +
  "writer's journal would not be rolled back; see engineWasm.ts and test/unit/core/hotJournal.test.ts";
const SQLITE_OK = 0;

function isReservedLockCheck(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  const src = Function.prototype.toString.call(fn);
  return src.includes('accessSync') && src.includes('.lock') && !src.includes('mkdirSync') && !src.includes('rmdirSync');
}

function withOwnLockUnreserved<T>(evaluate: () => T): T {
  const Original = WebAssembly.Instance;
  function Hooked(module: WebAssembly.Module, imports?: WebAssembly.Imports): WebAssembly.Instance {
    let memory: WebAssembly.Memory | undefined;
    const found: [Record<string, unknown>, string][] = [];
    for (const ns of Object.values(imports ?? {})) {
      for (const [name, fn] of Object.entries(ns)) if (isReservedLockCheck(fn)) found.push([ns as Record<string, unknown>, name]);
    }
    if (found.length === 1) {
      const [ns, name] = found[0];
      // (file, out) → *out = 0 ("no RESERVED lock"), SQLITE_OK; written through the instance's own memory.
      ns[name] = (_file: number, out: number) => {
        new Int32Array(memory!.buffer)[out >> 2] = 0;
        return SQLITE_OK;
      };
    }
    const instance = new Original(module, imports);
    memory = Object.values(instance.exports).find((e): e is WebAssembly.Memory => e instanceof WebAssembly.Memory);
    if (found.length === 1 && memory) reservedLockAnswered = true;
    return instance;
  }
  Hooked.prototype = Original.prototype;
  WebAssembly.Instance = Hooked as unknown as typeof WebAssembly.Instance;
  try {
    return evaluate();
  } finally {
    WebAssembly.Instance = Original;
  }
}

function forgetCachedCopy(): void {
  try {
    delete require.cache[require.resolve('node-sqlite3-wasm')];
  } catch {
    /* inside a bundle: there is no cached copy to forget */
  }
}

/** The Database class this engine opens with (tests that watch what IndexDb hands SQLite patch its prototype). */
export function wasmDatabaseClass(): SqliteModule['Database'] {
  return load().Database;
}

/** Whether this process's node-sqlite3-wasm rolls back a killed writer's journal (always true once it loaded). */
export function wasmRollsBackHotJournals(): boolean {
  return reservedLockAnswered;
}

class WasmDb implements EngineDb {
  constructor(private readonly db: Database) {}
  exec(sql: string): void {
    this.db.exec(sql);
  }
  all(sql: string, params?: unknown[]): Row[] {
    return this.db.all(sql, params as never) as Row[];
  }
  get(sql: string, params?: unknown[]): Row | null {
    return this.db.get(sql, params as never) as Row | null;
  }
  run(sql: string, params?: unknown[]) {
    return this.db.run(sql, params as never);
  }
  prepare(sql: string): EngineStatement {
    const stmt = this.db.prepare(sql);
    return {
      run: (params) => stmt.run(params as never),
      all: (params) => stmt.all(params as never) as Row[],
      finalize: () => stmt.finalize(),
    };
  }
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }
  get isOpen(): boolean {
    return this.db.isOpen;
  }
  close(): void {
    this.db.close();
  }
}

export const wasmEngine: SqliteEngine = {
  name: 'wasm',
  locksItself: true,
  open: (path, opts) => new WasmDb(new (load().Database)(path, opts?.readOnly ? { readOnly: true } : undefined)),
  isSqliteError: (err): err is Error => sqlite !== undefined && err instanceof sqlite.SQLite3Error,
};
