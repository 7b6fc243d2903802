// Does the int8 (dynamically quantised) model keep retrieval quality? The float model (dist/models/use-lite) and
// its int8 conversion (dist/models/use-lite-int8, `node scripts/convert-model.mjs --int8`) each embed every
// passage of the real corpus into one index of their own (.cache/bench-int8/, git-ignored; the vectors of the
// two ids never mix), then the same graded queries go through the real recall(): BM25, vectors alone and the
// default hybrid (with and without the relevance floor), nDCG@10 and R@5 per query type. It also reports the
// best vector-only cosine of the off-topic queries (what the floor is calibrated on) for both models, and how
// far the int8 vectors are from the float ones.
//
//   npx tsx bench/quality/int8.ts [--runtime native|wasm] [--threads 2] [--cold]   → bench/results/int8.json
//   npx tsx bench/quality/int8.ts --storage    (the older question: int8 *vectors* of the float model)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { IndexDb } from '../../src/core/index/db';
import { IncrementalScanner } from '../../src/core/scan/scanner';
import { EmbeddingEngine } from '../../src/core/embed/engine';
import { bundledModelDir } from '../../src/core/embed/modelLocation';
import type { RuntimeName } from '../../src/core/embed/runtime';
import { recall } from '../../src/core/search/recall';
import type { RecallMode, VectorChannel } from '../../src/core/search/types';
import { DEFAULT_FUSION, fuse, indexGraph } from '../../src/core/search/fusion';
import { relevanceFloor } from '../../src/core/search/floor';
import { DEFAULT_PASSAGES, VECTOR_SCHEMA_SQL, VectorStore, passagesOf } from '../../src/core/search/vector';
import { corpusDir, flag, ndcg10, opt, readGradedQueries, recall5 } from './graded';

const root = join(__dirname, '..', '..');
const FLOAT_DIR = bundledModelDir();
const INT8_DIR = resolve(opt('--int8-dir') ?? join(root, 'dist', 'models', 'use-lite-int8'));

interface ModelRun {
  id: string;
  engine: EmbeddingEngine;
  store: VectorStore;
  qvec: Map<string, Float32Array>;
  embedded: number;
  embedSeconds: number;
  embedCpuSeconds: number;
}

async function embedModel(idx: IndexDb, dir: string, runtime: RuntimeName, threads: number, queries: string[]): Promise<ModelRun> {
  const engine = await EmbeddingEngine.load(dir, { runtime, threads, batchSize: 32 });
  const { id, dimension } = engine.config;
  if (flag('--cold')) idx.write(() => (idx.exec(VECTOR_SCHEMA_SQL), idx.run('DELETE FROM vectors WHERE model = ?', [id])));
  const store = new VectorStore(idx, id, dimension);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const embedded = await store.embedPending(async (texts) => (await engine.embed(texts)).vectors, { batch: 256 });
  const embedSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // One query per call, as recall embeds them: the int8 model quantises activations per call, so a text's
  // vector depends slightly on what shares its batch (cosine ≥ 0.997 to the batched one on the parity texts).
  const qvec = new Map<string, Float32Array>();
  for (const q of queries) qvec.set(q, (await engine.embed([q])).vectors[0]);
  console.error(`${id} (${engine.runtime}): ${embedded} passages embedded in ${embedSeconds.toFixed(1)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU-s, load ${loadavg()[0].toFixed(1)}`);
  return { id, engine, store, qvec, embedded, embedSeconds, embedCpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

function offTopicQueries(): string[] {
  const json = JSON.parse(readFileSync(join(__dirname, 'offtopic.json'), 'utf8')) as Record<string, unknown>;
  return Object.values(json).filter(Array.isArray).flat().map(String);
}

async function compareModels(): Promise<void> {
  const corpus = corpusDir();
  if (!existsSync(join(INT8_DIR, 'k0model.json'))) throw new Error(`no int8 model at ${INT8_DIR}: run node scripts/convert-model.mjs --int8`);
  const runtime = (opt('--runtime') ?? 'native') as RuntimeName;
  const threads = Number(opt('--threads') ?? 2);
  const cacheDir = resolve(join(root, '.cache', 'bench-int8'));
  mkdirSync(cacheDir, { recursive: true });
  const idx = IndexDb.open(join(cacheDir, 'index.db'));
  const scan = await new IncrementalScanner(idx, corpus).scan({});
  const queries = readGradedQueries();
  const offTopic = offTopicQueries();
  const texts = [...queries.map((q) => q.query), ...offTopic];
  const load0 = loadavg();
  const runs = [await embedModel(idx, FLOAT_DIR, runtime, threads, texts), await embedModel(idx, INT8_DIR, runtime, threads, texts)];
  const [f32, i8] = runs;

  // The same passage through both models: how far apart are the vectors?
  let minCos = 1;
  let sumCos = 0;
  let n = 0;
  const hashes = idx.all('SELECT hash, vec FROM vectors WHERE model = ?', [f32.id]);
  const int8Vecs = new Map(idx.all('SELECT hash, vec FROM vectors WHERE model = ?', [i8.id]).map((r) => [String(r.hash), r.vec as Uint8Array]));
  const asF32 = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  for (const r of hashes) {
    const other = int8Vecs.get(String(r.hash));
    if (!other) continue;
    const a = asF32(r.vec as Uint8Array);
    const b = asF32(other);
    let d = 0;
    for (let j = 0; j < a.length; j++) d += a[j] * b[j];
    minCos = Math.min(minCos, d);
    sumCos += d;
    n++;
  }

  const graph = indexGraph(idx);
  const project = { index: idx, paths: { notesRoot: corpus } } as unknown as Parameters<typeof recall>[0];
  // One floor for both: the float model's calibrated 0.58, so the rows compare the models and nothing else.
  const floor = relevanceFloor(f32.id);
  const channel = (m: ModelRun, withFloor: boolean): VectorChannel => ({
    search: async (query, pool) => m.store.search(m.qvec.get(query)!, pool),
    pending: () => 0,
    floor: withFloor ? floor : undefined,
    fuse: (lex, vec) => fuse(lex, vec, DEFAULT_FUSION, graph),
  });
  const methods: { name: string; mode: RecallMode; model?: ModelRun; floor?: boolean }[] = [
    { name: 'bm25', mode: 'bm25' },
    ...runs.flatMap((m) => [
      { name: `vector ${m.id}`, mode: 'vector' as const, model: m },
      { name: `default, no floor ${m.id}`, mode: 'hybrid' as const, model: m },
      { name: `default ${m.id}`, mode: 'hybrid' as const, model: m, floor: true },
    ]),
  ];
  const types = ['all', ...new Set(queries.map((q) => q.type))];
  const rows: Record<string, Record<string, { ndcg: number; r5: number }>> = {};
  for (const m of methods) {
    const acc: Record<string, { ndcg: number[]; r5: number[] }> = {};
    for (const q of queries) {
      const res = await recall(project, q.query, { limit: 10, mode: m.mode, vectors: m.model ? channel(m.model, m.floor ?? false) : undefined });
      const ranked = res.hits.map((h) => h.path);
      for (const key of ['all', q.type]) {
        acc[key] ??= { ndcg: [], r5: [] };
        acc[key].ndcg.push(ndcg10(ranked, q.relevant));
        acc[key].r5.push(recall5(ranked, q.relevant));
      }
    }
    const mean = (xs: number[]) => +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(4);
    rows[m.name] = Object.fromEntries(types.map((t) => [t, { ndcg: mean(acc[t].ndcg), r5: mean(acc[t].r5) }]));
  }
  // The floor's input: each off-topic query's best vector cosine over the corpus, per model.
  const bestCos = (m: ModelRun) => offTopic.map((q) => m.store.search(m.qvec.get(q)!, 1)[0]?.score ?? 0);
  const offTopicBest = Object.fromEntries(runs.map((m) => [m.id, +Math.max(...bestCos(m)).toFixed(4)]));

  const lines = [`| method | ${types.map((t) => `nDCG@10 ${t} | R@5 ${t}`).join(' | ')} |`, `|---|${types.map(() => '---|---').join('|')}|`];
  for (const m of methods) lines.push(`| ${m.name} | ${types.map((t) => `${rows[m.name][t].ndcg.toFixed(3)} | ${rows[m.name][t].r5.toFixed(2)}`).join(' | ')} |`);
  console.log(lines.join('\n'));
  const result = {
    date: new Date().toISOString(),
    runtime,
    threads,
    corpus: { notes: scan.total, passages: f32.store.size.passages },
    queries: queries.length,
    loadAverageBefore: load0.map((x) => +x.toFixed(1)),
    loadAverageAfter: loadavg().map((x) => +x.toFixed(1)),
    embed: runs.map((m) => ({ model: m.id, embedded: m.embedded, seconds: +m.embedSeconds.toFixed(1), cpuSeconds: +m.embedCpuSeconds.toFixed(1), perSecond: +(m.embedded / m.embedSeconds).toFixed(1), perCpuSecond: +(m.embedded / m.embedCpuSeconds).toFixed(1) })),
    vectorAgreement: { passages: n, meanCosine: +(sumCos / Math.max(1, n)).toFixed(5), minCosine: +minCos.toFixed(5) },
    offTopicBestCosine: offTopicBest,
    floor,
    rows,
  };
  console.log(JSON.stringify({ ...result, rows: undefined }, null, 1));
  writeFileSync(join(root, 'bench', 'results', 'int8.json'), `${JSON.stringify(result, null, 1)}\n`);
  for (const m of runs) await m.engine.dispose();
  idx.close();
}

/** int8 storage of the float model's vectors (v ≈ s · q per vector) over run.ts's cached index. */
async function storage(): Promise<void> {
  const idx = IndexDb.open(join(root, '.cache', 'bench-quality', 'index.db'));
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
    nF += ndcg10(a, q.relevant);
    nQ += ndcg10(b, q.relevant);
  });
  const n = queries.length;
  console.log(JSON.stringify({ passages: f32.length, bytesFloat32: f32.length * dim * 4, bytesInt8: f32.length * (dim + 4), top10Overlap: +(overlap / n).toFixed(3), ndcg10Float32: +(nF / n).toFixed(4), ndcg10Int8: +(nQ / n).toFixed(4), maxCosineError: +maxErr.toFixed(4) }, null, 1));
  await engine.dispose();
  idx.close();
}

(flag('--storage') ? storage() : compareModels()).catch((err) => {
  console.error(err);
  process.exit(1);
});
