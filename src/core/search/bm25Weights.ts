import type { IndexDb } from '../index/db';
import { BUCKET_LENGTH, COLUMNS, FIELDS, LENGTH_BOUNDS, type Field } from '../index/ftsLayout';

/** FTS5's bm25 constants (fts5_aux.c): the weights below are derived for exactly these. */
const K1 = 1.2;
const B = 0.75;

export type FieldWeights = Record<Field, number>;

/**
 * The `bm25(chunks_fts, …)` call that scores with each row's own length normalisation (ftsLayout.ts explains how):
 * field weight × L0 / L_k for the columns of length bucket k, from the table's current average row length. The
 * averages record (FTS5's `_data` row 1: a varint row count, then a varint token total per column) is read once
 * per call: it is one small row.
 */
export function bm25Call(idx: IndexDb, weights: FieldWeights): string {
  const avgdl = averageRowLength(idx);
  const plain = () => `bm25(chunks_fts, ${COLUMNS.map((c) => weights[c.replace(/\d+$/, '') as Field]).join(', ')})`;
  if (!avgdl) return plain();
  const l0 = 1 - B + (B * -COLUMNS.length) / avgdl;
  // L0 = 0 would make every weight 0 (and FTS5's score 0/0); only an average of exactly 3 tokens per column does it.
  if (Math.abs(l0) < 1e-9) return plain();
  const scale = BUCKET_LENGTH.map((d) => l0 / (1 - B + (B * d) / avgdl));
  const args = FIELDS.flatMap((f) => LENGTH_BOUNDS.map((_, k) => String(weights[f] * scale[k])));
  return `bm25(chunks_fts, ${args.join(', ')})`;
}

/** Average tokens per row as FTS5 computes it for bm25, or 0 for an empty table. */
export function averageRowLength(idx: IndexDb): number {
  const row = idx.get('SELECT block FROM chunks_fts_data WHERE id = 1');
  const block = row?.block;
  if (!(block instanceof Uint8Array) || !block.length) return 0;
  let pos = 0;
  const next = () => {
    const [v, n] = readVarint(block, pos);
    pos += n;
    return v;
  };
  const rows = next();
  let tokens = 0;
  for (let i = 0; i < COLUMNS.length && pos < block.length; i++) tokens += next();
  return rows > 0 ? tokens / rows : 0;
}

/** SQLite's varint: big-endian 7-bit groups, high bit = more; the 9th byte carries 8 bits. */
function readVarint(buf: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const b = buf[at + i];
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) return [v, i + 1];
  }
  return [v * 256 + buf[at + 8], 9];
}
