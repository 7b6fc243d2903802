import { existsSync } from 'node:fs';
import type { EngineName, SqliteEngine } from './engine';
import { IndexLockBusy, loadNativeSqlite, nativeEngine } from './engineNative';
import { wasmEngine } from './engineWasm';

/**
 * Which SQLite this process uses: Node's built-in `node:sqlite` when the runtime has it (Node ≥ 22.13: the CLI or
 * MCP server started by a Node 22 `node`, newer editor hosts), node-sqlite3-wasm everywhere else (Node 20, VS Code
 * 1.100's Electron host). `K0MARU_SQLITE=wasm` forces WASM (comparison runs, or a runtime whose node:sqlite
 * misbehaves); `K0MARU_SQLITE=native` asks for native and falls back to WASM where it is absent. Both engines
 * honour the same `<db>.lock` protocol (engine.ts), so which one a process picks never matters to the others.
 */
let chosen: SqliteEngine | undefined;
export function engine(): SqliteEngine {
  chosen ??= pick(process.env.K0MARU_SQLITE);
  return chosen;
}

function pick(wanted: string | undefined): SqliteEngine {
  if (wanted === 'wasm') return wasmEngine;
  return loadNativeSqlite() ? nativeEngine : wasmEngine;
}

/** The engine this process opens indexes with (status output, benches, tests). */
export function engineName(): EngineName {
  return engine().name;
}

/** Errors raised by SQLite itself, through either engine (only ever thrown once an engine is loaded). */
export function isSqliteError(err: unknown): err is Error {
  return wasmEngine.isSqliteError(err) || nativeEngine.isSqliteError(err) || err instanceof IndexLockBusy;
}

/** What SQLite's error messages mean to the index: busy (retry), corrupt (heal), an I/O failure (say so). */
export function isBusy(err: unknown): boolean {
  return err instanceof IndexLockBusy || (isSqliteError(err) && /database is locked|database is busy|SQLITE_BUSY/i.test(err.message));
}
/**
 * FTS5 reads its config table when a statement first touches the virtual table; if another process holds the lock
 * at that moment SQLite reports only "vtable constructor failed: chunks_fts", not SQLITE_BUSY. Seen under the
 * 300-of-315 ms contention test. It counts as busy while another process's lock is there to explain it.
 */
export function isVtabBusy(err: unknown, lockPath: string, attempt: number, seen: { lock: boolean }): boolean {
  if (!isSqliteError(err) || !/vtable constructor failed/i.test(err.message)) return false;
  // The lock may have been released between the failure and this look (the contention test frees it 15 ms of every
  // 315): a few attempts are retried regardless, and once another process's lock has been seen during this call,
  // every later failure of the kind is taken for the same contention, up to the busy budget.
  seen.lock ||= existsSync(lockPath);
  return attempt < 5 || seen.lock;
}
export function isCorrupt(err: unknown): boolean {
  return isSqliteError(err) && /not a database|malformed|corrupt|disk image/i.test(err.message);
}
export function isIoFailure(err: unknown): boolean {
  return isSqliteError(err) && /disk I\/O|database or disk is full|readonly|unable to open/i.test(err.message);
}
