import { statSync } from 'node:fs';
import type { VaultPaths } from '../vault/paths';
import { listSourceNotes, noteSources, readRegularFile, type NoteSource } from '../vault/noteSources';
import { parseAdrRules, GUARD_SECTION_RE } from './ruleParser';
import { mayInferRules } from './proseSentences';
import { validateRegex } from './pattern';
import type { AdrRules } from './types';

/**
 * Finds the rules of every ADR in the vault. A note is a rule source when it has a guard section (`## Invariants`,
 * `## Rules`, `## Guard`); this covers ADR folders and `type: decision` notes alike without guessing from names.
 * Compiled rules are cached in the index database keyed by the note's xxh3 content hash (rows also keep mtime and
 * size so an unchanged note is not even read). Hosts that keep the index open (MCP server, editor) pass it in.
 * A one-shot process (CLI, git hook) parses directly by default: opening SQLite-in-WASM measured ~130 ms of CPU,
 * more than reading 500 notes and scanning the ADRs among them (see docs/guard.md). Without a database the same
 * (path, mtime, size) memo is kept in memory for the life of the process. The cache only ever saves time; it
 * never decides what applies.
 */

/** Bump when the rule grammar or compiled shape changes: cached rows from an older parser are then ignored. */
const PARSER_VERSION = 'g2';

/** The subset of the index's database handle the cache needs (IndexDb satisfies it). */
export interface RuleCacheDb {
  all(sql: string, params?: unknown[]): Record<string, unknown>[];
  write<T>(fn: () => T): T;
  run(sql: string, params?: unknown[]): unknown;
  exec(sql: string): void;
}

const CREATE = `CREATE TABLE IF NOT EXISTS guard_rules(
  path TEXT PRIMARY KEY,
  hash TEXT NOT NULL,
  mtime_ms REAL NOT NULL,
  size INTEGER NOT NULL,
  payload TEXT
)`;

let hasher: ((data: string) => string) | undefined;

export interface LoadedRules {
  adrs: AdrRules[];
  /** Notes read and (re)parsed this time, for the bench and tests. */
  parsed: number;
  cached: number;
}

type Row = { hash: string; mtime: number; size: number; payload: string | null };
/**
 * Per note set (keyed by its folders), the in-memory memo of a process without a database. Bounded: a long-lived
 * host that opens many vaults keeps only the most recently used few (issue 13 item 15).
 */
export const MEMO_MAX_VAULTS = 8;
const memo = new Map<string, Map<string, Row>>();

function memoFor(key: string): Map<string, Row> {
  const rows = memo.get(key) ?? new Map<string, Row>();
  memo.delete(key); // re-inserted last: Map order is the LRU order
  memo.set(key, rows);
  while (memo.size > MEMO_MAX_VAULTS) memo.delete(memo.keys().next().value as string);
  return rows;
}

/** For tests: how many note sets the memo holds. */
export function memoSize(): number {
  return memo.size;
}

/** The notes to read rules from: a project's sources (vault + ADR folders) or, given a folder, that folder alone. */
export type RuleSources = string | VaultPaths | NoteSource[];

function sourcesOf(notes: RuleSources): NoteSource[] {
  if (typeof notes === 'string') return [{ root: notes, prefix: '', boundary: notes, exclude: [] }];
  if (Array.isArray(notes)) return notes;
  return noteSources(notes);
}

export async function loadVaultRules(notes: RuleSources, db?: RuleCacheDb | null): Promise<LoadedRules> {
  const sources = sourcesOf(notes);
  // The notes the index holds, by the same rule (src/core/vault/noteFiles.ts): no stat per regular file here.
  const files = listSourceNotes(sources).files.map((f) => ({ ...f, rel: f.path }));
  const result: LoadedRules = { adrs: [], parsed: 0, cached: 0 };
  let rows = new Map<string, Row>();
  if (!db) rows = memoFor(sources.map((s) => `${s.prefix}\0${s.root}`).join('\0'));
  if (db) {
    db.exec(CREATE);
    for (const r of db.all('SELECT path, hash, mtime_ms, size, payload FROM guard_rules')) {
      rows.set(String(r.path), { hash: String(r.hash), mtime: Number(r.mtime_ms), size: Number(r.size), payload: r.payload === null ? null : String(r.payload) });
    }
  }
  const upserts: [string, string, number, number, string | null][] = [];
  for (const f of files) {
    const row = rows.get(f.rel);
    // Stat only when there is a row to compare with (or a row to write); the first one-shot load just reads.
    let st = f.stat;
    if (!st && (row || db)) {
      try {
        st = statSync(f.abs);
      } catch {
        continue; // gone since the walk
      }
    }
    const mtimeMs = st?.mtimeMs ?? NaN;
    const size = st?.size ?? NaN;
    if (row && row.mtime === mtimeMs && row.size === size && row.hash.startsWith(PARSER_VERSION + ':')) {
      result.cached++;
      if (row.payload) result.adrs.push(JSON.parse(row.payload) as AdrRules);
      continue;
    }
    let raw: string;
    try {
      // Never blocks on a FIFO swapped in after the walk (fstat decides before any read).
      raw = readRegularFile(f.abs).toString('utf8');
    } catch {
      continue; // unreadable now: the scanner reports it; the guard must not crash a commit over it
    }
    let hash = '';
    if (db) {
      // Loaded only with a cache: hash-wasm's module carries every algorithm's WASM.
      // The scanner's xxh3 loader: one WASM instance per process, and an import shape the ESM bundle resolves.
      hasher ??= await (await import('../scan/hash')).loadHasher();
      hash = `${PARSER_VERSION}:${hasher(raw)}`;
      if (row && row.hash === hash) {
        result.cached++;
        if (row.payload) result.adrs.push(JSON.parse(row.payload) as AdrRules);
        upserts.push([f.rel, hash, mtimeMs, size, row.payload]);
        continue;
      }
    }
    let payload: string | null = null;
    if (GUARD_SECTION_RE.test(raw) || mayInferRules(raw)) {
      const adr = parseAdrRules(raw, f.rel, validateRegex);
      result.adrs.push(adr);
      payload = JSON.stringify(adr);
    }
    result.parsed++;
    if (db) upserts.push([f.rel, hash, mtimeMs, size, payload]);
    // Without a stat (first load) the row holds NaN: the next load stats, re-reads once and stores real values.
    else rows.set(f.rel, { hash: `${PARSER_VERSION}:memo`, mtime: mtimeMs, size, payload });
  }
  const present = new Set(files.map((f) => f.rel));
  const gone = [...rows.keys()].filter((p) => !present.has(p));
  if (!db) for (const p of gone) rows.delete(p);
  if (db && (upserts.length || gone.length)) {
    db.write(() => {
      for (const u of upserts) db.run('INSERT OR REPLACE INTO guard_rules(path, hash, mtime_ms, size, payload) VALUES (?, ?, ?, ?, ?)', u);
      for (const p of gone) db.run('DELETE FROM guard_rules WHERE path = ?', [p]);
    });
  }
  return result;
}
