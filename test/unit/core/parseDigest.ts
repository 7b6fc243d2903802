import { createHash } from 'node:crypto';
import type { IndexDb } from '../../../src/core/index/db';

/**
 * Digests of what the parser, chunker and writer produce, so the parse-equivalence test compares against the
 * recorded output of the pre-change code (test/unit/core/parseDigests.json) instead of a frozen copy of it.
 */

type Writer = { upsert(rec: { path: string; hash: string; mtimeMs: number; size: number; note: never; warnings: string[] }, hash: (t: string) => string): void; finalize(): void };

/** BigInts as `123n`, key order kept: the stored frontmatter JSON's key order is part of what must not change. */
export const bigintSafe = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

export function parseDigest(note: unknown, chunks: unknown): string {
  return sha(bigintSafe({ note, chunks }));
}

/** Two batches, the second re-writing every 7th note: removal and re-insert go through the writer too. */
export function writeRows(idx: IndexDb, all: { rel: string; raw: string }[], writer: (idx: IndexDb) => Writer, parse: (raw: string, rel: string) => unknown) {
  const chunkHash = (t: string) => `h${t.length}:${t.slice(0, 8)}`;
  for (const batch of [all, all.filter((_, i) => i % 7 === 0)]) {
    idx.write(() => {
      const w = writer(idx);
      for (const [i, { rel, raw }] of batch.entries()) {
        w.upsert({ path: rel, hash: `f${i}`, mtimeMs: 1000 + i, size: raw.length, note: parse(raw, rel) as never, warnings: i % 5 ? [] : ['w'] }, chunkHash);
      }
      w.finalize();
    });
  }
  return {
    documents: idx.all('SELECT * FROM documents ORDER BY id'),
    // The columns the pre-change writer wrote (schema 5 added chunks.fts_bucket and split chunks_fts into length-
    // bucket columns). A contentless table reads every column as NULL, so its rowids are what the recorded digest
    // holds; schema 5's table (columnsize=0) cannot be scanned, so they are read from its index (fts5vocab).
    chunks: idx.all('SELECT id, doc_id, ord, heading, text, line, end_line, hash FROM chunks ORDER BY id'),
    links: idx.all('SELECT * FROM links ORDER BY rowid'),
    fts: ftsRowids(idx),
  };
}

function ftsRowids(idx: IndexDb): unknown[] {
  idx.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_rows USING fts5vocab(main, chunks_fts, instance)');
  return idx.all('SELECT DISTINCT doc AS rowid, NULL AS title, NULL AS heading, NULL AS body FROM temp.fts_rows ORDER BY doc');
}

export function rowsDigest(rows: Record<string, unknown[]>): Record<string, { rows: number; sha256: string }> {
  return Object.fromEntries(Object.entries(rows).map(([table, r]) => [table, { rows: r.length, sha256: sha(bigintSafe(r)) }]));
}
