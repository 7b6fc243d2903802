// What int8 vectors would cost in quality: the vector channel's document ranking with float32 vs. per-vector
// symmetric int8 (v ≈ s · q, q ∈ [-127, 127]) over the same cached vectors and queries as bench/quality/run.ts.
// Run run.ts first (it fills .cache/bench-quality/index.db).   npx tsx bench/quality/int8.ts
import { join } from 'node:path';
import { IndexDb } from '../../src/core/index/db';
import { EmbeddingEngine } from '../../src/core/embed/engine';
import { bundledModelDir } from '../../src/core/embed/modelLocation';
import { DEFAULT_PASSAGES, passagesOf } from '../../src/core/search/vector';
import { readGradedQueries } from './graded';


async function main() {
  const idx = IndexDb.open(join(__dirname, '..', '..', '.cache', 'bench-quality', 'index.db'));
  const engine = await EmbeddingEngine.load(bundledModelDir(), { threads: 2 });
  const dim = engine.config.dimension;
  const rows = idx.all('SELECT c.id, c.doc_id, c.heading, c.text, d.title, d.path FROM chunks c JOIN documents d ON d.id = c.doc_id');
  const stored = new Map(idx.all('SELECT hash, vec FROM vectors WHERE model = ?', [engine.config.id]).map((r) => [String(r.hash), r.vec as Uint8Array]));
  const docs: string[] = [];
  const f32: Float32Array[] = [];
  for (const r of rows) {
    for (const p of passagesOf({ id: Number(r.id), docId: Number(r.doc_id), title: String(r.title), heading: String(r.heading), text: String(r.text) }, DEFAULT_PASSAGES)) {
      const b = stored.get(p.hash);
      if (!b) continue;
      docs.push(String(r.path));
      f32.push(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
    }
  }
  const q8 = f32.map((v) => {
    const s = Math.max(...v.map(Math.abs)) / 127;
    return { s, q: Int8Array.from(v, (x) => Math.round(x / s)) };
  });
  const queries = readGradedQueries();
  const { vectors } = await engine.embed(queries.map((q) => q.query));
  const top = (scores: number[]) => {
    const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a]);
    const out: string[] = [];
    for (const i of order) if (!out.includes(docs[i]) && out.push(docs[i]) >= 10) break;
    return out;
  };
  const ndcg = (ranked: string[], rel: Record<string, number>) => {
    const g = (x: number) => 2 ** x - 1;
    const dcg = ranked.reduce((s, p, i) => s + g(rel[p] ?? 0) / Math.log2(i + 2), 0);
    const ideal = Object.values(rel).sort((a, b) => b - a).slice(0, 10).reduce((s, x, i) => s + g(x) / Math.log2(i + 2), 0);
    return dcg / ideal;
  };
  let overlap = 0;
  let nF = 0;
  let nQ = 0;
  let maxErr = 0;
  queries.forEach((q, qi) => {
    const qv = vectors[qi];
    const fs = f32.map((v) => v.reduce((s, x, j) => s + x * qv[j], 0));
    const is = q8.map(({ s, q: qq }) => qq.reduce((acc, x, j) => acc + x * qv[j], 0) * s);
    fs.forEach((x, i) => (maxErr = Math.max(maxErr, Math.abs(x - is[i]))));
    const a = top(fs);
    const b = top(is);
    overlap += a.filter((p) => b.includes(p)).length / 10;
    nF += ndcg(a, q.relevant);
    nQ += ndcg(b, q.relevant);
  });
  const n = queries.length;
  console.log(JSON.stringify({ passages: f32.length, bytesFloat32: f32.length * dim * 4, bytesInt8: f32.length * (dim + 4), top10Overlap: +(overlap / n).toFixed(3), ndcg10Float32: +(nF / n).toFixed(4), ndcg10Int8: +(nQ / n).toFixed(4), maxCosineError: +maxErr.toFixed(4) }, null, 1));
  await engine.dispose();
  idx.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
