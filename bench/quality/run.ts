// Retrieval quality over the real ADR corpus (read in place from ../shared/corpus/adr-vault, never copied):
// nDCG@10 and recall@5 per query type for BM25, vectors, the seed's RRF, RRF + boost, the fusion candidates
// and MiniSearch's BM25 as an outside baseline, all in one run over the same index.
//
//   npx tsx bench/quality/run.ts [--corpus DIR] [--cold] [--threads N] [--variants]
//
// The index and the vectors are cached in .cache/bench-quality/ (git-ignored): --cold drops the vectors first
// and reports the cold embedding time. --variants also measures passage sizes and prefixes (embeds more).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import MiniSearch from 'minisearch';
import { IndexDb } from '../../src/core/index/db';
import { IncrementalScanner } from '../../src/core/scan/scanner';
import { recall } from '../../src/core/search/recall';
import type { RecallMode, VectorChannel } from '../../src/core/search/types';
import { DEFAULT_FUSION, fuse, indexGraph, SEED_RRF, type FusionOptions } from '../../src/core/search/fusion';
import { relevanceFloor } from '../../src/core/search/floor';
import { VECTOR_SCHEMA_SQL, VectorStore, type PassageOptions } from '../../src/core/search/vector';
import { EmbeddingEngine } from '../../src/core/embed/engine';
import { corpusDir, flag, ndcg10, opt, qualityModelDir, readGradedQueries, recall5, type GradedQuery } from './graded';


const corpus = corpusDir();
const cacheDir = resolve(join(__dirname, '..', '..', '.cache', 'bench-quality'));
const threads = Number(opt('--threads') ?? 2);
const queries = readGradedQueries();


async function main(): Promise<void> {
  if (!existsSync(corpus)) throw new Error(`corpus not found: ${corpus}`);
  mkdirSync(cacheDir, { recursive: true });
  const idx = IndexDb.open(join(cacheDir, 'index.db'));
  const scan = await new IncrementalScanner(idx, corpus).scan({});
  const chunks = Number(idx.get('SELECT COUNT(*) AS n FROM chunks')?.n);
  console.log(`corpus: ${scan.total} notes, ${chunks} chunks (${corpus})`);

  const engine = await EmbeddingEngine.load(qualityModelDir(), { threads, batchSize: 32 });
  const { id: modelId, dimension } = engine.config;
  const embed = async (texts: string[]) => (await engine.embed(texts)).vectors;
  if (flag('--cold')) {
    idx.write(() => {
      idx.exec(VECTOR_SCHEMA_SQL);
      idx.run('DELETE FROM vectors WHERE model = ?', [modelId]);
    });
  }

  const variants: [string, PassageOptions][] = [['60w+title', { windowWords: 60, prefix: 'title' }]];
  if (flag('--variants')) {
    // Each variant embeds the whole corpus again (~6k passages): the title prefix, and the lexical chunk size.
    variants.push(['60w', { windowWords: 60, prefix: 'none' }], ['100w', { windowWords: 100, prefix: 'none' }]);
  }
  const stores = new Map<string, VectorStore>();
  for (const [name, p] of variants) {
    const store = new VectorStore(idx, modelId, dimension, p);
    const pending = store.pending();
    const t0 = performance.now();
    const n = await store.embedPending(embed, { batch: 32 });
    const s = (performance.now() - t0) / 1000;
    console.log(`vectors ${name}: ${store.size.passages} passages, ${pending} embedded now${n ? ` in ${s.toFixed(1)} s (${(n / s).toFixed(1)} passages/s, ${threads} thread(s))` : ' (cached)'}`);
    stores.set(name, store);
  }

  // Query vectors once.
  const qvec = new Map<string, Float32Array>();
  const qv = await embed(queries.map((q) => q.query));
  queries.forEach((q, i) => qvec.set(q.query, qv[i]));

  const graph = indexGraph(idx);
  // The product's relevance floor (floor.ts) applies to every method below but the "no floor" rows.
  const floor = relevanceFloor(modelId);
  const channel = (store: VectorStore, fusion: FusionOptions, noFloor?: boolean): VectorChannel => ({
    search: async (query, pool) => store.search(qvec.get(query)!, pool),
    pending: () => 0,
    floor: noFloor ? undefined : floor,
    fuse: (lex, vec) => fuse(lex, vec, fusion, graph),
  });
  const project = { index: idx, paths: { notesRoot: corpus } } as unknown as Parameters<typeof recall>[0];

  // MiniSearch over whole documents: an outside BM25 baseline.
  const docs = idx.all("SELECT d.id, d.path, d.title, group_concat(c.text, ' ') AS body FROM documents d JOIN chunks c ON c.doc_id = d.id GROUP BY d.id");
  const mini = new MiniSearch({ fields: ['title', 'body'], storeFields: ['path'], searchOptions: { boost: { title: 2 } } });
  mini.addAll(docs.map((d) => ({ id: Number(d.id), path: String(d.path), title: String(d.title), body: String(d.body) })));

  const main60 = stores.get('60w+title')!;
  type Method = { name: string; mode: RecallMode | 'minisearch'; store?: VectorStore; fusion?: FusionOptions; noFloor?: boolean };
  const methods: Method[] = [
    { name: 'bm25', mode: 'bm25' },
    { name: 'minisearch', mode: 'minisearch' },
    { name: 'vector', mode: 'vector', store: main60 },
    { name: 'seed rrf', mode: 'hybrid', store: main60, fusion: SEED_RRF },
    { name: 'rrf + boost .05', mode: 'hybrid', store: main60, fusion: { ...SEED_RRF, boost: 0.05 } },
    { name: 'wrrf .8/.2', mode: 'hybrid', store: main60, fusion: { method: 'wrrf', bm25Weight: 0.8 } },
    { name: 'wrrf .8/.2 k=10', mode: 'hybrid', store: main60, fusion: { method: 'wrrf', bm25Weight: 0.8, k: 10 } },
    { name: 'blend .7', mode: 'hybrid', store: main60, fusion: { method: 'blend', bm25Weight: 0.7 } },
    { name: 'blend .75', mode: 'hybrid', store: main60, fusion: { method: 'blend', bm25Weight: 0.75 } },
    { name: 'blend .8', mode: 'hybrid', store: main60, fusion: { method: 'blend', bm25Weight: 0.8 } },
    { name: 'blend .85', mode: 'hybrid', store: main60, fusion: { method: 'blend', bm25Weight: 0.85 } },
    { name: 'blend .9', mode: 'hybrid', store: main60, fusion: { method: 'blend', bm25Weight: 0.9 } },
    { name: 'blend .8 + boost .05', mode: 'hybrid', store: main60, fusion: { method: 'blend', bm25Weight: 0.8, boost: 0.05 } },
    { name: 'rescue .30 @3', mode: 'hybrid', store: main60, fusion: { method: 'rescue', rescueCosine: 0.3, rescueAfter: 3 } },
    { name: 'rescue .35 @3', mode: 'hybrid', store: main60, fusion: { method: 'rescue', rescueCosine: 0.35, rescueAfter: 3 } },
    { name: 'rescue .40 @2', mode: 'hybrid', store: main60, fusion: { method: 'rescue', rescueCosine: 0.4, rescueAfter: 2 } },
    { name: 'vector, no floor', mode: 'vector', store: main60, noFloor: true },
    { name: 'default, no floor', mode: 'hybrid', store: main60, fusion: DEFAULT_FUSION, noFloor: true },
    { name: 'default', mode: 'hybrid', store: main60, fusion: DEFAULT_FUSION },
    { name: 'default without the lift (= blend .8)', mode: 'hybrid', store: main60, fusion: { ...DEFAULT_FUSION, lift: undefined } },
    { name: 'default + boost .05', mode: 'hybrid', store: main60, fusion: { ...DEFAULT_FUSION, boost: 0.05 } },
  ];
  for (const [name, store] of stores) if (name !== '60w+title') methods.push({ name: `vector ${name}`, mode: 'vector', store }, { name: `default ${name}`, mode: 'hybrid', store, fusion: DEFAULT_FUSION });

  const types = [...new Set(queries.map((q) => q.type))];
  const rows: Record<string, Record<string, { ndcg: number; r5: number }>> = {};
  const perQuery: Record<string, Record<string, string[]>> = {};
  for (const m of methods) {
    const acc: Record<string, { ndcg: number[]; r5: number[] }> = { all: { ndcg: [], r5: [] } };
    for (const q of queries) {
      let ranked: string[];
      if (m.mode === 'minisearch') ranked = mini.search(q.query).slice(0, 10).map((r) => String(r.path));
      else {
        const res = await recall(project, q.query, { limit: 10, mode: m.mode, vectors: m.store ? channel(m.store, m.fusion ?? SEED_RRF, m.noFloor) : undefined });
        ranked = res.hits.map((h) => h.path);
      }
      (perQuery[q.id] ??= {})[m.name] = ranked.slice(0, 5);
      // Also per half (tune = even id number, test = odd), as paraphrase.ts splits them.
      const h = Number(q.id.split('-')[1]) % 2 === 0 ? 'tune' : 'test';
      for (const key of ['all', q.type, `${h}:all`, `${h}:${q.type}`]) {
        acc[key] ??= { ndcg: [], r5: [] };
        acc[key].ndcg.push(ndcg10(ranked, q.relevant));
        acc[key].r5.push(recall5(ranked, q.relevant));
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    rows[m.name] = Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, { ndcg: mean(v.ndcg), r5: mean(v.r5) }]));
  }

  const cols = ['all', ...types];
  const header = `| method | ${cols.map((c) => `nDCG@10 ${c} | R@5 ${c}`).join(' | ')} |`;
  const lines = [header, `|---|${cols.map(() => '---|---').join('|')}|`];
  for (const m of methods) lines.push(`| ${m.name} | ${cols.map((c) => `${rows[m.name][c].ndcg.toFixed(3)} | ${rows[m.name][c].r5.toFixed(2)}`).join(' | ')} |`);
  const table = lines.join('\n');
  console.log(`\nrelevance floor ${floor ?? 'none'} (${modelId}); "no floor" rows show the same method without it`);
  console.log(`\n${queries.length} queries (${types.map((t) => `${queries.filter((q) => q.type === t).length} ${t}`).join(', ')})\n`);
  console.log(table);
  const outDir = join(__dirname, '..', 'results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'quality.json'), JSON.stringify({ date: new Date().toISOString(), model: modelId, queries: queries.length, rows, perQuery }, null, 1));
  await engine.dispose();
  idx.close();
  if (flag('--drop-cache')) rmSync(cacheDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
