// Which graded queries does the default fusion's lift (fusion.ts) change, and how: each query through the real
// recall() with and without the lift, printing the nDCG@10 / R@5 change, the lifted note (its grade, cosine, BM25
// rank) and the cosines of the notes it displaced (b = BM25 also found it, v = vector only, then its grade).
//
//   npx tsx bench/quality/liftEffect.ts      (after run.ts has cached the index and vectors)
import { recall } from '../../src/core/search/recall';
import { DEFAULT_FUSION, fuse, indexGraph, type FusionOptions } from '../../src/core/search/fusion';
import { relevanceFloor } from '../../src/core/search/floor';
import { searchBm25 } from '../../src/core/search/bm25';
import type { VectorChannel } from '../../src/core/search/types';
import { corpusDir, ndcg10, openCachedQualityIndex, readGradedQueries, recall5 } from './graded';
(async () => {
  const { idx, engine, store } = await openCachedQualityIndex(1);
  const qs = readGradedQueries();
  const vecs = (await engine.embed(qs.map((q) => q.query))).vectors;
  const graph = indexGraph(idx);
  const floor = relevanceFloor(engine.config.id);
  const project = { index: idx, paths: { notesRoot: corpusDir() } } as unknown as Parameters<typeof recall>[0];
  const ch = (f: FusionOptions, i: number): VectorChannel => ({ search: async (_q, pool) => store.search(vecs[i], pool), pending: () => 0, floor, fuse: (l, v) => fuse(l, v, f, graph) });
  const paths = new Map(idx.all('SELECT id, path FROM documents').map((r) => [Number(r.id), String(r.path)]));
  for (let i = 0; i < qs.length; i++) {
    const q = qs[i];
    const a = await recall(project, q.query, { mode: 'hybrid', vectors: ch(DEFAULT_FUSION, i), limit: 10 });
    const b = await recall(project, q.query, { mode: 'hybrid', vectors: ch({ ...DEFAULT_FUSION, lift: undefined }, i), limit: 10 });
    const lifted = a.hits.find((h) => h.explain.lifted);
    if (!lifted) continue;
    const pa = a.hits.map((h) => h.path), pb = b.hits.map((h) => h.path);
    const vec = await store.search(vecs[i], 5);
    const lex = searchBm25(idx, q.query, 30);
    const bm25Rank = lex.findIndex((h) => paths.get(h.docId) === lifted.path) + 1;
    const half = Number(q.id.split('-')[1]) % 2 === 0 ? 'tune' : 'test';
    const dn = ndcg10(pa, q.relevant) - ndcg10(pb, q.relevant), dr = recall5(pa, q.relevant) - recall5(pb, q.relevant);
    const c = vec.map((v) => v.score);
    const displaced = b.hits.slice(2, 5).map((h) => (h.explain.vector?.cosine ?? 0).toFixed(3) + (h.explain.bm25 ? "b" : "v") + (q.relevant[h.path] ?? 0)).join(",");
    console.log(`disp ${displaced} ${half} ${q.id} dN ${dn.toFixed(3)} dR5 ${dr.toFixed(2)} rel ${q.relevant[lifted.path] ?? 0} cos ${c.slice(0, 3).map((x: number) => x.toFixed(3)).join('/')} bm25rank ${bm25Rank} lexTop ${lex[0]?.score.toFixed(2)} ${lifted.path.split('/').pop()} | ${q.query}`);
  }
  await engine.dispose();
})();
