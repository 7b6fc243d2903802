// How much a stale note should rank lower (STALE_FACTOR in src/core/search/recall.ts), measured on the graded
// queries of bench/quality/queries.json over the real ADR corpus (read in place from ../shared/corpus/adr-vault).
//
//   npx tsx bench/staleFactor.ts [--corpus DIR] [--hybrid] [--threads N] [--factors 1,0.9,0.8,...]
//
// Notes are marked stale synthetically, in-process, through recall()'s `staleness` option — the ranking code is
// the product's own (recall → dress → the stale demotion), only "which note is stale" is injected. Two questions:
//  (a) preference: for every query and every pair of relevant notes of EQUAL grade, mark one stale: how often does
//      the fresh one then rank above the stale one (top 20)? Counted over the pairs where both are in the top 20
//      with no demotion (the others cannot change order). Factor 1 is the coin toss of the corpus itself.
//  (b) the only answer: for every query with exactly one relevant note, mark that note stale: is it still in the
//      top 5? Counted over the queries whose answer is in the top 5 when fresh. "It must not hide the only answer."
// BM25 alone by default (no model to load); --hybrid measures the shipped hybrid fusion with the bundled model
// (embeds the corpus once, cached in .cache/bench-stale-factor/, several minutes on 2 cores).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IndexDb } from '../src/core/index/db';
import { IncrementalScanner } from '../src/core/scan/scanner';
import { recall } from '../src/core/search/recall';
import type { RecallMode, VectorChannel } from '../src/core/search/types';
import type { StaleInfo } from '../src/core/stale/types';
import { corpusDir, flag, opt, readGradedQueries } from './quality/graded';

const corpus = corpusDir();
const cacheDir = resolve(join(__dirname, '..', '.cache', 'bench-stale-factor'));
const factors = (opt('--factors') ?? '1,0.95,0.9,0.85,0.8,0.7,0.6,0.5,0.4,0.3').split(',').map(Number);
const queries = readGradedQueries();
/** How deep (a) looks: the pool recall fuses for limit 5 is 20 candidates. */
const PAIR_DEPTH = 20;

const SYNTHETIC: StaleInfo = { reason: 'synthetic (bench)', since: '0000000', base: '0'.repeat(40), anchors: [] };

interface Row {
  factor: number;
  /** (a) pairs where the fresh note ranks above the stale one / informative pairs. */
  freshFirst: number;
  pairs: number;
  /** (b) only answers still in the top 5 / only answers in the top 5 when fresh. */
  kept: number;
  answerable: number;
  /** (b) mean rank of the only answer when stale (1-based, among those in the top 10). */
  meanRank: number;
}

async function main(): Promise<void> {
  if (!existsSync(corpus)) throw new Error(`corpus not found: ${corpus}`);
  mkdirSync(cacheDir, { recursive: true });
  const idx = IndexDb.open(join(cacheDir, 'index.db'));
  const scan = await new IncrementalScanner(idx, corpus).scan({});
  const idOf = new Map(idx.all('SELECT id, path FROM documents').map((r) => [String(r.path), Number(r.id)]));
  console.log(`corpus: ${scan.total} notes (${corpus}); ${queries.length} graded queries`);

  const mode: RecallMode = flag('--hybrid') ? 'hybrid' : 'bm25';
  const vectors = mode === 'hybrid' ? await hybridChannel(idx) : undefined;
  const project = { index: idx, paths: { notesRoot: corpus } } as unknown as Parameters<typeof recall>[0];
  const ranked = async (query: string, stalePath: string | undefined, factor: number, limit: number): Promise<string[]> => {
    const staleId = stalePath === undefined ? undefined : idOf.get(stalePath);
    const staleness = (_: unknown, ids: number[]) => new Map(staleId !== undefined && ids.includes(staleId) ? [[staleId, SYNTHETIC]] : []);
    const r = await recall(project, query, { limit, mode, vectors, staleness, staleFactor: factor });
    return r.hits.map((h) => h.path);
  };

  // (a) equal-grade pairs both in the top 20 without demotion.
  const pairs: { query: string; stale: string; fresh: string }[] = [];
  // (b) only answers in the top 5 without demotion.
  const onlyAnswers: { query: string; path: string }[] = [];
  for (const q of queries) {
    const rel = Object.entries(q.relevant);
    const base = await ranked(q.query, undefined, 1, PAIR_DEPTH);
    if (rel.length === 1) {
      if (base.slice(0, 5).includes(rel[0][0])) onlyAnswers.push({ query: q.query, path: rel[0][0] });
      continue;
    }
    for (const [s, gs] of rel) for (const [f, gf] of rel) if (s !== f && gs === gf && base.includes(s) && base.includes(f)) pairs.push({ query: q.query, stale: s, fresh: f });
  }
  const singles = queries.filter((q) => Object.keys(q.relevant).length === 1).length;
  console.log(`mode ${mode}; (a) ${pairs.length} ordered equal-grade pairs both in the top ${PAIR_DEPTH}; (b) ${onlyAnswers.length} of ${singles} single-answer queries answered in the top 5 when fresh\n`);

  const rows: Row[] = [];
  for (const factor of factors) {
    let freshFirst = 0;
    for (const p of pairs) {
      const r = await ranked(p.query, p.stale, factor, PAIR_DEPTH);
      const fi = r.indexOf(p.fresh);
      const si = r.indexOf(p.stale);
      if (fi >= 0 && (si < 0 || fi < si)) freshFirst++;
    }
    let kept = 0;
    const ranks: number[] = [];
    for (const a of onlyAnswers) {
      const r = await ranked(a.query, a.path, factor, 10);
      const i = r.indexOf(a.path);
      if (i >= 0 && i < 5) kept++;
      if (i >= 0) ranks.push(i + 1);
    }
    rows.push({ factor, freshFirst, pairs: pairs.length, kept, answerable: onlyAnswers.length, meanRank: ranks.reduce((x, y) => x + y, 0) / Math.max(1, ranks.length) });
  }

  const lines = ['| factor | (a) fresh ranks above stale, equal grade | (b) only answer still in top 5 | (b) mean rank of the stale only answer |', '|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.factor} | ${r.freshFirst}/${r.pairs} (${pct(r.freshFirst, r.pairs)}) | ${r.kept}/${r.answerable} (${pct(r.kept, r.answerable)}) | ${r.meanRank.toFixed(2)} |`);
  console.log(lines.join('\n'));
  const outDir = join(__dirname, 'results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, `staleFactor-${mode}.json`), JSON.stringify({ date: new Date().toISOString(), mode, corpus: 'adr-vault', queries: queries.length, rows }, null, 1));
  idx.close();
}

function pct(n: number, d: number): string {
  return d ? `${((100 * n) / d).toFixed(1)} %` : '–';
}

/** The shipped fusion over the bundled model's vectors, as bench/quality/run.ts builds it. */
async function hybridChannel(idx: IndexDb): Promise<VectorChannel> {
  const [{ EmbeddingEngine }, { bundledModelDir }, { VectorStore }, { DEFAULT_FUSION, fuse, indexGraph }, { relevanceFloor }] = await Promise.all([
    import('../src/core/embed/engine'),
    import('../src/core/embed/modelLocation'),
    import('../src/core/search/vector'),
    import('../src/core/search/fusion'),
    import('../src/core/search/floor'),
  ]);
  const engine = await EmbeddingEngine.load(bundledModelDir(), { threads: Number(opt('--threads') ?? 2), batchSize: 32 });
  const embed = async (texts: string[]) => (await engine.embed(texts)).vectors;
  const store = new VectorStore(idx, engine.config.id, engine.config.dimension, { windowWords: 60, prefix: 'title' });
  const t0 = performance.now();
  const n = await store.embedPending(embed, { batch: 32 });
  console.log(`vectors: ${store.size.passages} passages, ${n} embedded now in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const qv = await embed(queries.map((q) => q.query));
  const qvec = new Map(queries.map((q, i) => [q.query, qv[i]]));
  const graph = indexGraph(idx);
  return {
    search: async (query, pool) => store.search(qvec.get(query)!, pool),
    pending: () => 0,
    floor: relevanceFloor(engine.config.id),
    fuse: (lex, vec) => fuse(lex, vec, DEFAULT_FUSION, graph),
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
