import type { IndexDb } from '../index/db';
import { DEFAULT_PASSAGES, passagesOf, type PassageOptions } from './vector';

/**
 * Pseudo-relevance feedback on the vector side (Rocchio): the query vector moved toward the centroid of the
 * passages of the lexical channel's top chunks, q' = normalise(q + beta · normalise(centroid)). Measured by
 * bench/quality/paraphrase.ts; undefined when none of those passages has a vector of this model (then the caller
 * keeps q). Reads only the index: chunks, documents and the `vectors` table.
 */
export function feedbackVector(idx: IndexDb, modelId: string, query: Float32Array, chunkIds: number[], beta: number, opts: PassageOptions = DEFAULT_PASSAGES): Float32Array | undefined {
  if (!chunkIds.length) return undefined;
  const rows = idx.all(
    `SELECT c.id, c.doc_id, c.heading, c.text, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (${chunkIds.map(() => '?').join(',')})`,
    chunkIds,
  );
  const sum = new Float32Array(query.length);
  let n = 0;
  for (const r of rows) {
    for (const p of passagesOf({ id: Number(r.id), docId: Number(r.doc_id), title: String(r.title), heading: String(r.heading), text: String(r.text) }, opts)) {
      const blob = idx.get('SELECT vec FROM vectors WHERE model = ? AND hash = ?', [modelId, p.hash])?.vec;
      if (!(blob instanceof Uint8Array) || blob.byteLength !== query.length * 4) continue;
      const v = new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
      for (let i = 0; i < v.length; i++) sum[i] += v[i];
      n++;
    }
  }
  if (!n) return undefined;
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  const c = norm(sum);
  const out = new Float32Array(query.length);
  for (let i = 0; i < out.length; i++) out[i] = query[i] + (beta * sum[i]) / c;
  const o = norm(out);
  for (let i = 0; i < out.length; i++) out[i] /= o;
  return out;
}
