import { statSync } from 'node:fs';
import type { NoteStat } from '../vault/noteFiles';
import { readConfig, type K0Config, type VaultPaths } from '../vault/paths';
import { listSourceNotes, noteSources, readRegularFile, type NoteSource } from '../vault/noteSources';
import { validateRegex } from './pattern';
import type { AdrRules } from './types';
import { fileCacheByDefault, openRuleCacheFile, type RuleCacheFile } from './ruleCacheFile';
import { LruMap } from './lru';

/**
 * Finds the rules of every ADR in the vault. A note is a rule source when it has a guard section (`## Invariants`,
 * `## Rules`, `## Guard`); this covers ADR folders and `type: decision` notes alike without guessing from names.
 * Compiled rules are cached in the index database keyed by the note's xxh3 content hash (rows also keep mtime and
 * size so an unchanged note is not even read). Hosts that keep the index open (MCP server, editor) pass it in.
 * A one-shot process (CLI, git hook) parses directly by default: opening SQLite-in-WASM measured ~130 ms of CPU,
 * more than reading 500 notes and scanning the ADRs among them (see docs/guard.md). Without a database the same
 * (path, mtime, size) memo is kept in memory for the life of the process, and a project's notes (VaultPaths) are
 * also cached across processes in `.k0maru/cache/guard-rules.json` (ruleCacheFile.ts: parsing every note for
 * explicit and inferred rules was ~140 ms of a hook's CPU on 500 notes). The caches only ever save time; they
 * never decide what applies.
 */

/**
 * Bump when the rule grammar or compiled shape changes: cached rows from an older parser are then ignored. (The
 * cache file is also keyed by the build's code files, so a forgotten bump costs the index cache only.)
 */
export const PARSER_VERSION = 'g3';

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

/**
 * The parser (explicit rules and prose inference, ~90 KB of the bundle) is loaded on the first note that must be
 * read: a hook run whose notes all come from a cache never compiles it.
 */
let parser: Promise<{ parseAdrRules: typeof import('./ruleParser').parseAdrRules; mayHaveRules: (raw: string) => boolean }> | undefined;
function loadParser() {
  parser ??= Promise.all([import('./ruleParser'), import('./proseSentences')]).then(([p, s]) => ({
    parseAdrRules: p.parseAdrRules,
    mayHaveRules: (raw: string) => p.GUARD_SECTION_RE.test(raw) || s.mayInferRules(raw),
  }));
  return parser;
}

export interface LoadedRules {
  adrs: AdrRules[];
  /** Notes read and (re)parsed this time, for the bench and tests. */
  parsed: number;
  cached: number;
  /** What became of `.k0maru/cache/guard-rules.json` in this load (`none`: not used). */
  cacheFile: RuleCacheFile['status'] | 'none';
}

type Row = { hash: string; mtime: number; size: number; payload: string | null };
/**
 * Per note set (keyed by its folders), the in-memory memo of a process without a database. Bounded: a long-lived
 * host that opens many vaults keeps only the most recently used few (issue 13 item 15).
 */
export const MEMO_MAX_VAULTS = 8;
const memo = new LruMap<string, Map<string, Row>>(MEMO_MAX_VAULTS);

function memoFor(key: string): Map<string, Row> {
  let rows = memo.get(key);
  if (!rows) memo.set(key, (rows = new Map<string, Row>()));
  return rows;
}

/** For tests: how many note sets the memo holds. */
export function memoSize(): number {
  return memo.size;
}

/** The notes to read rules from: a project's sources (vault + ADR folders) or, given a folder, that folder alone. */
export type RuleSources = string | VaultPaths | NoteSource[];

export interface LoadRulesOptions {
  /** The load's start time for the cache file's freshness rule (tests move it; default Date.now()). */
  now?: number;
  /**
   * Use `.k0maru/cache/guard-rules.json` when loading a project's notes without a database. Default: yes, except
   * in the editor's bundle, which keeps the in-memory memo (ruleCacheFile.ts, fileCacheByDefault).
   */
  cacheFile?: boolean;
  /** The project's `.k0maru/config.json` when the caller already read it (guardCheck, explain): not read again. */
  config?: K0Config;
  /** The project's note sources when the caller already listed them (guardCheck): not listed again. */
  sources?: NoteSource[];
}

export async function loadVaultRules(notes: RuleSources, db?: RuleCacheDb | null, opts: LoadRulesOptions = {}): Promise<LoadedRules> {
  let sources: NoteSource[];
  let fileCache: RuleCacheFile | undefined;
  if (typeof notes === 'string') sources = [{ root: notes, prefix: '', boundary: notes, exclude: [] }];
  else if (Array.isArray(notes)) sources = notes;
  else {
    const cfg = opts.config ?? readConfig(notes.k0Dir);
    sources = opts.sources ?? noteSources(notes, cfg);
    if (!db && (opts.cacheFile ?? fileCacheByDefault())) {
      // What parsing depends on besides each note: the parser and where the notes come from. Only `guard` of the
      // config could plausibly matter; today the inferred policy is applied after loading (check.ts).
      const key = JSON.stringify([PARSER_VERSION, sources.map((s) => [s.root, s.prefix, s.boundary]), cfg.guard ?? null]);
      fileCache = openRuleCacheFile(notes.k0Dir, { key, now: opts.now });
    }
  }
  // The notes the index holds, by the same rule (src/core/vault/noteFiles.ts): no stat per regular file here.
  const files = listSourceNotes(sources).files.map((f) => ({ ...f, rel: f.path }));
  const result: LoadedRules = { adrs: [], parsed: 0, cached: 0, cacheFile: fileCache?.status ?? 'none' };
  let rows = new Map<string, Row>();
  // The cache file replaces the memo: its key (ctime and inode too, and no entry for a note edited a moment ago)
  // is stricter than the memo's (mtime, size), and a long-lived host then agrees with the next hook run.
  const useFile = !!fileCache && fileCache.status !== 'disabled';
  if (!db && !useFile) rows = memoFor(sources.map((s) => `${s.prefix}\0${s.root}`).join('\0'));
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
    let st: NoteStat | undefined = f.stat;
    if (!st && (row || db || fileCache)) {
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
    const fromFile = st && fileCache?.lookup(f.rel, st);
    if (st && fromFile !== undefined) {
      result.cached++;
      if (fromFile) result.adrs.push(fromFile);
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
      // Loaded only with a cache: its WASM is compiled on load.
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
    let adr: AdrRules | null = null;
    const { parseAdrRules, mayHaveRules } = await loadParser();
    if (mayHaveRules(raw)) {
      adr = parseAdrRules(raw, f.rel, validateRegex);
      result.adrs.push(adr);
      payload = JSON.stringify(adr);
    }
    // Serialized when the file is saved, below (a rule is plain JSON data: see the cache-vs-fresh test).
    if (st) fileCache?.record(f.rel, st, adr);
    result.parsed++;
    if (db) upserts.push([f.rel, hash, mtimeMs, size, payload]);
    // Without a stat (first load) the row holds NaN: the next load stats, re-reads once and stores real values.
    else if (!useFile) rows.set(f.rel, { hash: `${PARSER_VERSION}:memo`, mtime: mtimeMs, size, payload });
  }
  const present = new Set(files.map((f) => f.rel));
  const gone = [...rows.keys()].filter((p) => !present.has(p));
  if (!db) for (const p of gone) rows.delete(p);
  fileCache?.save(present);
  if (db && (upserts.length || gone.length)) {
    db.write(() => {
      for (const u of upserts) db.run('INSERT OR REPLACE INTO guard_rules(path, hash, mtime_ms, size, payload) VALUES (?, ?, ?, ?, ?)', u);
      for (const p of gone) db.run('DELETE FROM guard_rules WHERE path = ?', [p]);
    });
  }
  return result;
}
