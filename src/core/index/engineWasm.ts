import type { Database } from 'node-sqlite3-wasm';
import type { Row } from './db';
import type { EngineDb, EngineStatement, SqliteEngine } from './engine';
import { compileWasmQuickly } from './wasmTier';

/**
 * node-sqlite3-wasm compiles its WASM when the module is first evaluated: loaded on the first open, through
 * compileWasmQuickly (wasmTier.ts), so a one-shot process can skip the TurboFan tier-up of SQLite.
 * Its VFS takes the `<db>.lock` directory itself (mkdir in xLock, rmdir in xUnlock to NONE).
 */
type SqliteModule = typeof import('node-sqlite3-wasm');
let sqlite: SqliteModule | undefined;
function load(): SqliteModule {
  // A literal require() so esbuild bundles the module while it is still evaluated lazily.
  sqlite ??= compileWasmQuickly(() => require('node-sqlite3-wasm') as SqliteModule);
  return sqlite;
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
