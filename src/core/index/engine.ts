import type { Row } from './db';

/**
 * The seam between IndexDb and a SQLite implementation. Two ship: node-sqlite3-wasm (every runtime; the default
 * where the next one is absent) and Node's built-in `node:sqlite` (Node ≥ 22.13), which inserts and indexes ~3×
 * faster and opens without compiling 1.3 MB of WASM.
 *
 * Both can meet on one index file (a CLI on Node 22 and an editor host on Node 20), so both honour ONE lock: the
 * `<db>.lock` directory that node-sqlite3-wasm's VFS takes (mkdir) for every access, reads included. The WASM
 * engine takes it inside SQLite (`locksItself`); for the native engine IndexDb takes the same directory around
 * every top-level access and transaction (engineNative.ts), so a native process never reads or writes while a
 * WASM process holds the file and vice versa. Neither uses WAL (node-sqlite3-wasm has no shared memory): the
 * rollback journal is what both understand. The journal of a writer killed mid-transaction is rolled back by the
 * next opener on either engine (for node-sqlite3-wasm only because engineWasm.ts corrects its VFS's answer to
 * "does anyone hold RESERVED?"; test/unit/core/hotJournal.test.ts).
 */
export type EngineName = 'wasm' | 'native';

export interface EngineStatement {
  run(params?: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  /** Steps to the end, so the statement holds no read lock afterwards. */
  all(params?: unknown[]): Row[];
  finalize(): void;
}

export interface EngineDb {
  exec(sql: string): void;
  all(sql: string, params?: unknown[]): Row[];
  get(sql: string, params?: unknown[]): Row | null;
  run(sql: string, params?: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  prepare(sql: string): EngineStatement;
  readonly inTransaction: boolean;
  readonly isOpen: boolean;
  close(): void;
}

export interface SqliteEngine {
  readonly name: EngineName;
  /** Opens (creating when absent) the database file; the file is held open from here until close(). */
  open(path: string, opts?: { readOnly?: boolean }): EngineDb;
  /** True when the engine's own VFS takes `<db>.lock` on every access; false when IndexDb must take it. */
  readonly locksItself: boolean;
  /** Errors raised by SQLite itself through this engine. */
  isSqliteError(err: unknown): err is Error;
}
