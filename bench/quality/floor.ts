// Calibrates the relevance floor (the cosine a vector-only hit must reach) on the real ADR corpus, from data:
// the cosines of vector-only hits for the graded queries (queries.json) against those for queries no note
// answers (offtopic.json: random letter strings, other-domain questions). Graded queries are split by id number
// (even = tune, odd = test, as everywhere in bench/quality), off-topic ones by position: the floor and the answer
// gate are chosen on the tune half, their effect is reported on the test half, through the real recall().
//
//   npx tsx bench/quality/floor.ts [--corpus DIR] [--margin 0.01]
//
// Run bench/quality/run.ts first: it builds the index and the vectors in .cache/bench-quality/ (this script
// embeds only the queries). "Vector-only" = in the vector channel's pool (30) but not in BM25's (30).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { searchBm25 } from '../../src/core/search/bm25';
import { answerGateFor, knownShare, MIN_KNOWN_SHARE, relevanceFloor } from '../../src/core/search/floor';
import { DEFAULT_FUSION, fuse, indexGraph } from '../../src/core/search/fusion';
import { recall } from '../../src/core/search/recall';
import { corpusDir, type GradedQuery, openCachedQualityIndex, opt, readGradedQueries } from './graded';


const corpus = corpusDir();
const margin = Number(opt('--margin') ?? 0.01);
const POOL = 30;

const graded = readGradedQueries();
const junkFile = JSON.parse(readFileSync(join(__dirname, 'offtopic.json'), 'utf8')) as { random: string[]; offtopic: string[] };
const junk = [...junkFile.random.map((q) => ({ kind: 'random', query: q })), ...junkFile.offtopic.map((q) => ({ kind: 'offtopic', query: q }))];
const half = <T>(xs: T[], odd: boolean) => xs.filter((_, i) => i % 2 === (odd ? 1 : 0));
const idHalf = (xs: GradedQuery[], odd: boolean) => xs.filter((g) => Number(g.id.split('-')[1]) % 2 === (odd ? 1 : 0));

const q = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
};
const fmt = (xs: number[]) => (xs.length ? `n=${xs.length} min ${q(xs, 0).toFixed(3)} p10 ${q(xs, 0.1).toFixed(3)} p50 ${q(xs, 0.5).toFixed(3)} p90 ${q(xs, 0.9).toFixed(3)} max ${q(xs, 1).toFixed(3)}` : 'n=0');

async function main(): Promise<void> {
  const { idx, engine, store } = await openCachedQualityIndex(2);
  const modelId = engine.config.id;
  const docPath = new Map(idx.all('SELECT id, path FROM documents').map((r) => [Number(r.id), String(r.path)]));
  const texts = [...graded.map((g) => g.query), ...junk.map((j) => j.query)];
  const vecs = (await engine.embed(texts)).vectors;
  const qv = new Map(texts.map((t, i) => [t, vecs[i]]));

  /** The vector-only hits of one query: cosine and path, best first. */
  const vectorOnly = (query: string) => {
    const lexical = new Set(searchBm25(idx, query, POOL).map((h) => h.docId));
    const hits = store.search(qv.get(query)!, POOL);
    return { lexical: lexical.size, top: hits[0]?.score ?? -1, only: hits.filter((h) => !lexical.has(h.docId)).map((h) => ({ cosine: h.score, path: docPath.get(h.docId)!, rank: h.rank })) };
  };

  const measure = (odd: boolean) => {
    const junkTop = half(junk, odd).map((j) => ({ ...j, ...vectorOnly(j.query) }));
    const real = idHalf(graded, odd).map((g) => ({ ...g, ...vectorOnly(g.query) }));
    // Relevant (grade ≥ 2) documents the vector channel alone brought into its top 10: what a floor must keep.
    const relevantOnly = real.flatMap((r) => r.only.filter((h) => h.rank <= 10 && (r.relevant[h.path] ?? 0) >= 2).map((h) => ({ ...h, type: r.type, id: r.id })));
    const irrelevantOnly = real.flatMap((r) => r.only.filter((h) => h.rank <= 10 && !(h.path in r.relevant)).map((h) => h.cosine));
    return { junkTop, real, relevantOnly, irrelevantOnly };
  };

  const tune = measure(false);
  const test = measure(true);
  console.log(`model ${modelId}; ${graded.length} graded queries, ${junk.length} off-topic/nonsense queries; graded queries split by id number, off-topic ones by position (even = tune, odd = test)\n`);
  for (const [name, m] of [['tune', tune], ['test', test]] as const) {
    console.log(`${name}: best vector-only cosine, nonsense/off-topic: ${fmt(m.junkTop.map((j) => j.only[0]?.cosine ?? -1))}`);
    console.log(`${name}: best vector-only cosine, graded queries:     ${fmt(m.real.map((r) => r.only[0]?.cosine ?? -1))}`);
    console.log(`${name}: relevant (grade≥2) vector-only hits, top 10: ${fmt(m.relevantOnly.map((h) => h.cosine))}`);
    console.log(`${name}: ungraded vector-only hits, top 10:           ${fmt(m.irrelevantOnly)}`);
    const worst = [...m.junkTop].sort((a, b) => (b.only[0]?.cosine ?? -1) - (a.only[0]?.cosine ?? -1)).slice(0, 3);
    console.log(`${name}: highest nonsense/off-topic: ${worst.map((j) => `"${j.query}" ${j.only[0]?.cosine.toFixed(3)}`).join(', ')}\n`);
  }

  // The floor: just above every tune nonsense/off-topic query's best vector-only cosine, rounded up to 0.01.
  const junkMax = Math.max(...tune.junkTop.map((j) => j.only[0]?.cosine ?? -1));
  const chosen = Math.ceil((junkMax + margin) * 100) / 100;
  const keptRelTune = tune.relevantOnly.filter((h) => h.cosine >= chosen).length;
  console.log(`chosen on tune: max nonsense vector-only cosine ${junkMax.toFixed(3)} + margin ${margin} → floor ${chosen.toFixed(2)} (keeps ${keptRelTune}/${tune.relevantOnly.length} relevant vector-only hits of the tune half)`);
  const shipped = relevanceFloor(modelId);
  console.log(`shipped floor for ${modelId}: ${shipped ?? 'none'}\n`);

  const floor = shipped ?? chosen;
  const junkRejected = test.junkTop.filter((j) => !j.only.some((h) => h.cosine >= floor));
  const junkEmpty = test.junkTop.filter((j) => j.lexical === 0 && !j.only.some((h) => h.cosine >= floor));
  const keptRel = test.relevantOnly.filter((h) => h.cosine >= floor);
  const keptIrr = test.irrelevantOnly.filter((c) => c >= floor);
  console.log(`test half, floor ${floor.toFixed(2)}:`);
  console.log(`  nonsense/off-topic queries with no vector-only hit left: ${junkRejected.length}/${test.junkTop.length}; with no hit at all (no BM25 match either): ${junkEmpty.length}/${test.junkTop.length}`);
  for (const j of test.junkTop.filter((x) => !junkRejected.includes(x))) console.log(`    still passes: "${j.query}" (${j.only[0].cosine.toFixed(3)} ${j.only[0].path})`);
  console.log(`  relevant vector-only hits kept (recall of the floor): ${keptRel.length}/${test.relevantOnly.length}`);
  for (const h of test.relevantOnly.filter((x) => x.cosine < floor)) console.log(`    dropped: ${h.id} (${h.type}) ${h.cosine.toFixed(3)} ${h.path}`);
  console.log(`  ungraded vector-only hits kept: ${keptIrr.length}/${test.irrelevantOnly.length}`);
  console.log(`  precision of what passes (relevant among graded-query vector-only hits ≥ floor, top 10): ${(keptRel.length / Math.max(1, keptRel.length + keptIrr.length)).toFixed(2)}`);
  const junkPassing = test.junkTop.reduce((s, j) => s + j.only.filter((h) => h.cosine >= floor && h.rank <= 10).length, 0);
  console.log(`  vector-only hits ≥ floor from nonsense/off-topic queries (top 10): ${junkPassing}`);

  // The answer gate (floor.ts): for queries with a word no note contains (known share in [MIN_KNOWN_SHARE, 1)),
  // the best cosine over all passages must reach the gate. Chosen on the tune half: midway between the highest
  // off-topic query's best cosine and the lowest graded query's best cosine among such queries.
  const gateSet = (odd: boolean) => {
    const of = (query: string) => ({ known: knownShare(idx, query), best: store.search(qv.get(query)!, 1)[0]?.score ?? -1, lexical: searchBm25(idx, query, 1).length > 0 });
    const j = half(junk, odd).map((x) => ({ ...x, ...of(x.query) }));
    const r = idHalf(graded, odd).map((x) => ({ ...x, ...of(x.query) }));
    const gated = <T extends { known: number }>(xs: T[]) => xs.filter((x) => x.known >= MIN_KNOWN_SHARE && x.known < 1);
    return { j, r, jg: gated(j.filter((x) => x.lexical)), rg: gated(r) };
  };
  const g = gateSet(false);
  const jMax = Math.max(...g.jg.map((x) => x.best));
  const rMin = Math.min(...g.rg.map((x) => x.best));
  const gateChosen = Math.round(((jMax + rMin) / 2) * 100) / 100;
  console.log(`answer gate, tune half: ${g.jg.length} off-topic queries with a BM25 match and an unknown word, best cosine max ${jMax.toFixed(3)} ("${g.jg.find((x) => x.best === jMax)?.query}"); ${g.rg.length} graded queries with an unknown word, best cosine min ${rMin.toFixed(3)} (${g.rg.find((x) => x.best === rMin)?.id}) → gate ${gateChosen.toFixed(2)}; shipped ${answerGateFor(shipped)}`);
  for (const x of [...g.j, ...g.r].filter((y) => y.known < MIN_KNOWN_SHARE)) console.log(`  tune, known share < ${MIN_KNOWN_SHARE} (no lexical match): "${x.query}" known ${x.known.toFixed(2)}, best cosine ${x.best.toFixed(3)}`);

  // Through the real recall() with the default fusion, floor and gate: what each half's queries get.
  const graph = indexGraph(idx);
  const project = { index: idx, paths: { notesRoot: corpus } } as unknown as Parameters<typeof recall>[0];
  const channel = { search: async (q: string, pool: number) => store.search(qv.get(q)!, pool), pending: () => 0, floor, fuse: (l: Parameters<typeof fuse>[0], v: Parameters<typeof fuse>[1]) => fuse(l, v, DEFAULT_FUSION, graph) };
  for (const odd of [false, true]) {
    const name = odd ? 'test' : 'tune';
    const answered: string[] = [];
    for (const j of half(junk, odd)) if ((await recall(project, j.query, { mode: 'hybrid', vectors: channel, limit: 10 })).hits.length) answered.push(j.query);
    const emptied: string[] = [];
    for (const r of idHalf(graded, odd)) if (!(await recall(project, r.query, { mode: 'hybrid', vectors: channel, limit: 10 })).hits.length) emptied.push(r.id);
    console.log(`${name} half, default hybrid recall (floor ${floor.toFixed(2)}, gate ${answerGateFor(floor)}): nonsense/off-topic answered ${answered.length}/${half(junk, odd).length}${answered.length ? ` (${answered.join('; ')})` : ''}; graded queries left with no answer ${emptied.length}/${idHalf(graded, odd).length}${emptied.length ? ` (${emptied.join(', ')})` : ''}`);
  }
  await engine.dispose();
  idx.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
