// Frozen copy of the parse/chunk code as of commit 5809ead (before the parse-speed work of issue 17): the reference
// test/unit/core/parseEquivalence.test.ts compares the live code against. Do not optimise or "fix" this copy.
import type { IndexDb } from '../../../../src/core/index/db';
import type { ParsedNote } from './markdown';
import { chunkNote } from './chunk';
import { isRetiredStatus, tierFor } from '../../../../src/core/index/tiers';
import { extractStatus } from '../../../../src/core/vault/status';

export interface DocumentRecord {
  path: string;
  hash: string;
  mtimeMs: number;
  size: number;
  note: ParsedNote;
  warnings: string[];
}

/**
 * Prepared statements for one write transaction. Preparing once per batch instead of per row matters: the
 * cold index writes tens of thousands of rows and each prepare crosses the WASM boundary.
 */
export class DocumentWriter {
  private readonly stmts;
  private readonly ftsWatermark: number;
  constructor(idx: IndexDb) {
    this.stmts = {
      findDoc: idx.prepare('SELECT id FROM documents WHERE path = ?'),
      deleteFts: idx.prepare('DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE doc_id = ?)'),
      deleteDoc: idx.prepare('DELETE FROM documents WHERE id = ?'),
      insertDoc: idx.prepare(
        `INSERT INTO documents(path, hash, mtime_ms, size, title, tier, category, status, date, tags, superseded, frontmatter, warnings)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertChunk: idx.prepare('INSERT INTO chunks(doc_id, ord, heading, text, line, end_line, hash) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      maxChunk: idx.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM chunks'),
      // One statement fills the FTS table for the whole batch from rows already in SQLite: the text crosses the
      // JS→WASM boundary once instead of twice, which is most of the cold-index cost.
      fillFts: idx.prepare(
        `INSERT INTO chunks_fts(rowid, title, heading, body)
         SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id > ?`,
      ),
      insertLink: idx.prepare('INSERT INTO links(from_doc, target, heading, line, embed) VALUES (?, ?, ?, ?, ?)'),
      touch: idx.prepare('UPDATE documents SET mtime_ms = ?, size = ? WHERE path = ?'),
    };
    this.ftsWatermark = Number(this.stmts.maxChunk.get()!.id);
  }

  /** Replaces whatever the index holds for `rec.path` (idempotent, so two racing scanners converge). */
  upsert(rec: DocumentRecord, chunkHash: (text: string) => string): void {
    this.remove(rec.path);
    const { note } = rec;
    const fm = note.frontmatter;
    const category = typeof fm.category === 'string' ? fm.category : typeof fm.type === 'string' ? fm.type : undefined;
    const status = extractStatus(note);
    const superseded = isRetiredStatus(status) || (fm.superseded_by !== undefined && fm.superseded_by !== null && fm.superseded_by !== '');
    const date = fm.date instanceof Date ? fm.date.toISOString().slice(0, 10) : typeof fm.date === 'string' ? fm.date : null;
    const res = this.stmts.insertDoc.run([
      rec.path,
      rec.hash,
      rec.mtimeMs,
      rec.size,
      note.title,
      tierFor(rec.path, category),
      category ?? null,
      status ?? null,
      date,
      JSON.stringify(note.tags),
      superseded ? 1 : 0,
      safeJson(fm),
      rec.warnings.length ? JSON.stringify(rec.warnings) : null,
    ]);
    const docId = Number(res.lastInsertRowid);
    for (const c of chunkNote(note)) {
      this.stmts.insertChunk.run([docId, c.ord, c.heading, c.text, c.line, c.endLine, chunkHash(c.text)]);
    }
    for (const l of note.links) {
      this.stmts.insertLink.run([docId, l.target.toLowerCase(), l.heading ?? null, l.line, l.embed ? 1 : 0]);
    }
  }

  remove(path: string): boolean {
    const row = this.stmts.findDoc.get([path]);
    if (!row) return false;
    this.stmts.deleteFts.run([row.id as number]);
    this.stmts.deleteDoc.run([row.id as number]);
    return true;
  }

  touch(path: string, mtimeMs: number, size: number): void {
    this.stmts.touch.run([mtimeMs, size, path]);
  }

  /** Indexes every chunk written by this writer in FTS5 and releases the statements. Call once per batch. */
  finalize(): void {
    try {
      this.stmts.fillFts.run([this.ftsWatermark]);
    } finally {
      for (const s of Object.values(this.stmts)) s.finalize();
    }
  }

  /** Releases the statements without indexing (the transaction is being rolled back). */
  abandon(): void {
    for (const s of Object.values(this.stmts)) s.finalize();
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x)) ?? '{}';
  } catch {
    return '{}';
  }
}
