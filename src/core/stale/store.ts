import type { IndexDb } from '../index/db';
import type { Anchor, StaleInfo, StalenessStatus } from './types';
import type { Definition } from './definitions';

/**
 * The staleness tables, beside the index's own and created lazily on the first write (like guard_rules): an index
 * without them simply has no staleness yet, and a schema rebuild that drops them costs one recomputation.
 *  - stale_notes: per note, the anchors extracted from the bytes with that hash, their base, and the verdict;
 *  - stale_meta: HEAD and the anchored files' mtime/size at the last check (the clean-scan fast path), the status;
 *  - stale_defs: definitions per git blob id, so a rescan re-parses only changed source files.
 */

const CREATE = `
CREATE TABLE IF NOT EXISTS stale_notes(
  doc_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  anchors TEXT NOT NULL,
  texts TEXT NOT NULL,
  warnings TEXT,
  last_commit TEXT,
  base TEXT,
  state TEXT NOT NULL,
  info TEXT
);
CREATE TABLE IF NOT EXISTS stale_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stale_defs(blob TEXT PRIMARY KEY, defs TEXT NOT NULL);`;

/** `unchecked`: anchors known, verdict not computed yet; `unknown`: the base is not in the local history. */
export type NoteState = 'none' | 'fresh' | 'stale' | 'unknown' | 'unchecked';

export interface StoredNote {
  docId: number;
  path: string;
  hash: string;
  anchors: Anchor[];
  /** Each anchor as written in the note, same order as `anchors`. */
  texts: string[];
  warnings: string[];
  /** The last commit that changed the note ('' = uncommitted or not in the repository). */
  lastCommit: string;
  base: string;
  state: NoteState;
  info?: StaleInfo;
}

function tableExists(idx: IndexDb): boolean {
  return idx.get("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'stale_notes'") !== null;
}

let created = new WeakSet<IndexDb>();
export function ensureTables(idx: IndexDb): void {
  if (created.has(idx) && tableExists(idx)) return;
  idx.exec(CREATE);
  created.add(idx);
}

/** For tests that drop the tables behind a handle's back. */
export function forgetTables(): void {
  created = new WeakSet<IndexDb>();
}

export function hasTables(idx: IndexDb): boolean {
  return tableExists(idx);
}

function rowToNote(r: Record<string, unknown>): StoredNote {
  return {
    docId: Number(r.doc_id),
    path: String(r.path),
    hash: String(r.hash),
    anchors: JSON.parse(String(r.anchors)) as Anchor[],
    texts: JSON.parse(String(r.texts)) as string[],
    warnings: r.warnings ? (JSON.parse(String(r.warnings)) as string[]) : [],
    lastCommit: r.last_commit ? String(r.last_commit) : '',
    base: r.base ? String(r.base) : '',
    state: String(r.state) as NoteState,
    info: r.info ? (JSON.parse(String(r.info)) as StaleInfo) : undefined,
  };
}

export function readNotes(idx: IndexDb, docIds?: number[]): StoredNote[] {
  if (!tableExists(idx)) return [];
  if (docIds && !docIds.length) return [];
  const where = docIds ? ` WHERE doc_id IN (${docIds.map(() => '?').join(',')})` : '';
  return idx.all(`SELECT * FROM stale_notes${where}`, docIds as never).map(rowToNote);
}

export function readStaleRows(idx: IndexDb, docIds?: number[]): StoredNote[] {
  if (!tableExists(idx)) return [];
  if (docIds && !docIds.length) return [];
  const ids = docIds ? ` AND doc_id IN (${docIds.map(() => '?').join(',')})` : '';
  return idx.all(`SELECT * FROM stale_notes WHERE state = 'stale'${ids}`, docIds as never).map(rowToNote);
}

export function writeNotes(idx: IndexDb, notes: StoredNote[]): void {
  if (!notes.length) return;
  const stmt = idx.prepare(`INSERT INTO stale_notes(doc_id, path, hash, anchors, texts, warnings, last_commit, base, state, info) VALUES (?,?,?,?,?,?,?,?,?,?)
    ON CONFLICT(doc_id) DO UPDATE SET path = excluded.path, hash = excluded.hash, anchors = excluded.anchors, texts = excluded.texts,
      warnings = excluded.warnings, last_commit = excluded.last_commit, base = excluded.base, state = excluded.state, info = excluded.info`);
  try {
    for (const n of notes) {
      stmt.run([n.docId, n.path, n.hash, JSON.stringify(n.anchors), JSON.stringify(n.texts), n.warnings.length ? JSON.stringify(n.warnings) : null, n.lastCommit || null, n.base || null, n.state, n.info ? JSON.stringify(n.info) : null]);
    }
  } finally {
    stmt.finalize();
  }
}

export function deleteNotes(idx: IndexDb, docIds: number[]): void {
  for (const id of docIds) idx.run('DELETE FROM stale_notes WHERE doc_id = ?', [id]);
}

export function readMeta(idx: IndexDb, key: string): string | undefined {
  if (!tableExists(idx)) return undefined;
  const r = idx.get('SELECT value FROM stale_meta WHERE key = ?', [key]);
  return r ? String(r.value) : undefined;
}

export function writeMeta(idx: IndexDb, key: string, value: string): void {
  idx.run('INSERT INTO stale_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
}

export function readStatus(idx: IndexDb): StalenessStatus | undefined {
  const v = readMeta(idx, 'status');
  return v ? (JSON.parse(v) as StalenessStatus) : undefined;
}

export function readDefs(idx: IndexDb, blobs: string[]): Map<string, Definition[]> {
  const out = new Map<string, Definition[]>();
  if (!blobs.length || !tableExists(idx)) return out;
  for (let i = 0; i < blobs.length; i += 500) {
    const part = blobs.slice(i, i + 500);
    for (const r of idx.all(`SELECT blob, defs FROM stale_defs WHERE blob IN (${part.map(() => '?').join(',')})`, part)) out.set(String(r.blob), JSON.parse(String(r.defs)) as Definition[]);
  }
  return out;
}

export function writeDefs(idx: IndexDb, defs: Map<string, Definition[]>): void {
  for (const [blob, d] of defs) idx.run('INSERT OR REPLACE INTO stale_defs(blob, defs) VALUES (?, ?)', [blob, JSON.stringify(d)]);
}
