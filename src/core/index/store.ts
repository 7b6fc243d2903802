import type { IndexDb, IndexStatement } from './db';
import type { ParsedNote } from '../vault/markdown';
import { COLUMNS, ftsValuesSql } from './ftsLayout';
import { prepareDocument, type PreparedDocument } from './prepare';

const CHUNK_INSERT = 'INSERT INTO chunks(doc_id, ord, heading, text, line, end_line, hash, fts_bucket)';
/** The FTS values of `chunks c JOIN documents d`, in COLUMNS order: the same expression inserts and deletes a row. */
const FTS_VALUES = ftsValuesSql('c.fts_bucket', { title: 'd.title', heading: 'c.heading', body: 'c.text' });
const LINK_INSERT = 'INSERT INTO links(from_doc, target, heading, line, embed)';
const ROWS_PER_INSERT = 8;

export interface DocumentRecord {
  path: string;
  hash: string;
  mtimeMs: number;
  size: number;
  note: ParsedNote;
  warnings: string[];
}

/** A document as a parse worker hands it over: the file's identity and what prepareDocument made of it. */
export interface PreparedRecord {
  path: string;
  hash: string;
  mtimeMs: number;
  size: number;
  doc: PreparedDocument;
}

/**
 * Prepared statements for one write transaction. Preparing once per batch instead of per row matters: the
 * cold index writes tens of thousands of rows and each prepare crosses the WASM boundary.
 */
export class DocumentWriter {
  private readonly stmts;
  private readonly ftsWatermark: number;
  /** Multi-row inserts by row count, prepared on first use. */
  private readonly chunkInserts = new Map<number, IndexStatement>();
  private readonly linkInserts = new Map<number, IndexStatement>();
  constructor(private readonly idx: IndexDb) {
    this.stmts = {
      findDoc: idx.prepare('SELECT id FROM documents WHERE path = ?'),
      // A contentless table forgets a row only when told what it indexed: the same title, heading and text fillFts
      // gave it (documents and chunks are written once per upsert and never updated in place).
      deleteFts: idx.prepare(
        `INSERT INTO chunks_fts(chunks_fts, rowid, ${COLUMNS.join(', ')})
         SELECT 'delete', c.id, ${FTS_VALUES} FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.doc_id = ?`,
      ),
      deleteDoc: idx.prepare('DELETE FROM documents WHERE id = ?'),
      insertDoc: idx.prepare(
        `INSERT INTO documents(path, hash, mtime_ms, size, title, tier, category, status, date, tags, superseded, frontmatter, warnings)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      maxChunk: idx.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM chunks'),
      // One statement fills the FTS table for the whole batch from rows already in SQLite: the text crosses the
      // JS→WASM boundary once instead of twice, which is most of the cold-index cost.
      fillFts: idx.prepare(
        `INSERT INTO chunks_fts(rowid, ${COLUMNS.join(', ')})
         SELECT c.id, ${FTS_VALUES} FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id > ?`,
      ),
      touch: idx.prepare('UPDATE documents SET mtime_ms = ?, size = ? WHERE path = ?'),
    };
    this.ftsWatermark = Number(this.stmts.maxChunk.get()!.id);
  }

  /** Replaces whatever the index holds for `rec.path` (idempotent, so two racing scanners converge). */
  upsert(rec: DocumentRecord, chunkHash: (text: string) => string): void {
    this.write({ path: rec.path, hash: rec.hash, mtimeMs: rec.mtimeMs, size: rec.size, doc: prepareDocument(rec.path, rec.note, rec.warnings, chunkHash) });
  }

  /** Like upsert, for a document already prepared (by a parse worker, or by upsert). */
  write(rec: PreparedRecord): void {
    this.remove(rec.path);
    const res = this.stmts.insertDoc.run([rec.path, rec.hash, rec.mtimeMs, rec.size, ...rec.doc.meta]);
    const docId = Number(res.lastInsertRowid);
    this.insertRows(this.chunkInserts, CHUNK_INSERT, docId, rec.doc.chunks);
    this.insertRows(this.linkInserts, LINK_INSERT, docId, rec.doc.links);
  }

  /**
   * Writes `docId, ...row` rows with multi-row INSERTs of up to ROWS_PER_INSERT rows: each statement call has a
   * fixed cost in either engine, and a note has a few chunks and links. Rows go in in order, so ids are what
   * single-row inserts gave.
   */
  private insertRows(cache: Map<number, IndexStatement>, sqlHead: string, docId: number, rows: unknown[][]): void {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const n = Math.min(ROWS_PER_INSERT, rows.length - i);
      let stmt = cache.get(n);
      if (!stmt) {
        const tuple = `(${['?', ...rows[i].map(() => '?')].join(', ')})`;
        stmt = this.idx.prepare(`${sqlHead} VALUES ${Array(n).fill(tuple).join(', ')}`);
        cache.set(n, stmt);
      }
      const params: unknown[] = [];
      for (let r = i; r < i + n; r++) params.push(docId, ...rows[r]);
      stmt.run(params);
    }
  }

  private releaseInserts(): void {
    for (const s of [...this.chunkInserts.values(), ...this.linkInserts.values()]) s.finalize();
    this.chunkInserts.clear();
    this.linkInserts.clear();
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
      this.releaseInserts();
    }
  }

  /** Releases the statements without indexing (the transaction is being rolled back). */
  abandon(): void {
    for (const s of Object.values(this.stmts)) s.finalize();
    this.releaseInserts();
  }
}
