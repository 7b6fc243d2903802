import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAdrRules, GUARD_SECTION_RE } from './ruleParser';
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
const PARSER_VERSION = 'g1';
const SKIP_DIRS = new Set(['.git', '.obsidian', '.trash', 'node_modules', '.k0maru-trash']);

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

interface NoteFile {
  rel: string;
  abs: string;
}

/** Lists notes without stat calls: a one-shot process with no cache row to compare against never needs them. */
function walk(root: string): NoteFile[] {
  const out: NoteFile[] = [];
  const visit = (dir: string, rel: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) visit(join(dir, e.name), rel ? `${rel}/${e.name}` : e.name);
      } else if (e.isFile() && e.name.toLowerCase().endsWith('.md')) {
        out.push({ rel: rel ? `${rel}/${e.name}` : e.name, abs: join(dir, e.name) });
      }
    }
  };
  visit(root, '');
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

type Row = { hash: string; mtime: number; size: number; payload: string | null };
const memo = new Map<string, Map<string, Row>>();

export async function loadVaultRules(notesRoot: string, db?: RuleCacheDb | null): Promise<LoadedRules> {
  const files = walk(notesRoot);
  const result: LoadedRules = { adrs: [], parsed: 0, cached: 0 };
  let rows = new Map<string, Row>();
  if (!db) {
    rows = memo.get(notesRoot) ?? new Map();
    memo.set(notesRoot, rows);
  }
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
    const st = row || db ? statSync(f.abs) : undefined;
    const mtimeMs = st?.mtimeMs ?? NaN;
    const size = st?.size ?? NaN;
    if (row && row.mtime === mtimeMs && row.size === size && row.hash.startsWith(PARSER_VERSION + ':')) {
      result.cached++;
      if (row.payload) result.adrs.push(JSON.parse(row.payload) as AdrRules);
      continue;
    }
    const raw = readFileSync(f.abs, 'utf8');
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
    if (GUARD_SECTION_RE.test(raw)) {
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
