import { existsSync } from 'node:fs';
import { compileWasmQuickly } from './wasmTier';

/**
 * node-sqlite3-wasm compiles its WASM when the module is first evaluated: loaded on the first open, through
 * compileWasmQuickly (wasmTier.ts), so a one-shot process can skip the TurboFan tier-up of SQLite.
 */
type SqliteModule = typeof import('node-sqlite3-wasm');
let sqlite: SqliteModule | undefined;
export function engine(): SqliteModule {
  // A literal require() so esbuild bundles the module while it is still evaluated lazily.
  sqlite ??= compileWasmQuickly(() => require('node-sqlite3-wasm') as SqliteModule);
  return sqlite;
}
/** Errors raised by SQLite itself (only ever thrown once the engine is loaded). */
export function isSqliteError(err: unknown): err is Error {
  return sqlite !== undefined && err instanceof sqlite.SQLite3Error;
}


/** What SQLite's error messages mean to the index: busy (retry), corrupt (heal), an I/O failure (say so). */
export function isBusy(err: unknown): boolean {
  return isSqliteError(err) && /database is locked|database is busy|SQLITE_BUSY/i.test(err.message);
}
/**
 * FTS5 reads its config table when a statement first touches the virtual table; if another process holds the lock
 * at that moment SQLite reports only "vtable constructor failed: chunks_fts", not SQLITE_BUSY. Seen under the
 * 300-of-315 ms contention test. It counts as busy while another process's lock is there to explain it.
 */
export function isVtabBusy(err: unknown, lockPath: string, attempt: number): boolean {
  if (!isSqliteError(err) || !/vtable constructor failed/i.test(err.message)) return false;
  // The lock may have been released between the failure and this look: a few attempts are retried regardless.
  return attempt < 5 || existsSync(lockPath);
}
export function isCorrupt(err: unknown): boolean {
  return isSqliteError(err) && /not a database|malformed|corrupt|disk image/i.test(err.message);
}
export function isIoFailure(err: unknown): boolean {
  return isSqliteError(err) && /disk I\/O|database or disk is full|readonly|unable to open/i.test(err.message);
}
