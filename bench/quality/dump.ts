// Dumps what the paraphrase-channel exploration needs, once, so candidates can be screened offline before the
// chosen ones are measured through the real recall() by paraphrase.ts: every passage vector of the cached quality
// index (with its chunk and document), the query vectors (graded + offtopic.json, and each query's BM25-PRF
// expansion), title and title+heading vectors (the "second vector field" candidates, with what they cost to embed),
// and each query's BM25 pool of 30 with the lexical coverage of every hit.
//
//   npx tsx bench/quality/dump.ts [--out DIR]     (default .cache/bench-quality/dump; run run.ts first)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { searchBm25 } from '../../src/core/search/bm25';
import { queryTokens, tokenize } from '../../src/core/search/ftsQuery';
import { expansionTerms } from '../../src/core/search/prf';
import { DEFAULT_PASSAGES, passagesOf } from '../../src/core/search/vector';
import { openCachedQualityIndex, opt, readGradedQueries } from './graded';

const out = resolve(opt('--out') ?? join(__dirname, '..', '..', '.cache', 'bench-quality', 'dump'));

function f32(vs: Float32Array[], file: string): void {
  const buf = Buffer.alloc(vs.length * (vs[0]?.length ?? 0) * 4);
  vs.forEach((v, i) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).copy(buf, i * v.byteLength));
  writeFileSync(join(out, file), buf);
}

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const { idx, engine } = await openCachedQualityIndex(2);
  const modelId = engine.config.id;
  const docs = idx.all('SELECT id, path, title, superseded FROM documents ORDER BY id').map((r) => ({ id: Number(r.id), path: String(r.path), title: String(r.title), superseded: Number(r.superseded) }));
  const title = new Map(docs.map((d) => [d.id, d.title]));
  const chunks = idx.all('SELECT id, doc_id, heading, text FROM chunks ORDER BY id').map((r) => ({ id: Number(r.id), docId: Number(r.doc_id), heading: String(r.heading), text: String(r.text) }));
  const stored = new Map(idx.all('SELECT hash, vec FROM vectors WHERE model = ?', [modelId]).map((r) => [String(r.hash), r.vec as Uint8Array]));
  const passages: { chunkId: number; docId: number; words: number }[] = [];
  const pvecs: Float32Array[] = [];
  for (const c of chunks) {
    for (const p of passagesOf({ ...c, title: title.get(c.docId) ?? '' }, DEFAULT_PASSAGES)) {
      const b = stored.get(p.hash);
      if (!b) continue;
      passages.push({ chunkId: c.id, docId: c.docId, words: p.text.split(/\s+/).length });
      pvecs.push(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
    }
  }
  f32(pvecs, 'passages.f32');

  const graded = readGradedQueries();
  const junk = JSON.parse(readFileSync(join(__dirname, 'offtopic.json'), 'utf8')) as { random: string[]; offtopic: string[] };
  const queries = [...graded.map((g) => ({ ...g })), ...junk.random.map((q, i) => ({ id: `rnd-${i}`, type: 'random', query: q, relevant: {} })), ...junk.offtopic.map((q, i) => ({ id: `off-${i}`, type: 'offtopic', query: q, relevant: {} }))];
  const chunkText = new Map(chunks.map((c) => [c.id, c]));
  const rows = queries.map((q) => {
    const bm = searchBm25(idx, q.query, 30);
    const own = new Set(queryTokens(q.query));
    const words = [...own];
    const cov = bm.map((h) => {
      const c = chunkText.get(h.chunkId)!;
      const toks = new Set(tokenize(`${title.get(c.docId)} ${c.heading} ${c.text}`));
      return words.length ? words.filter((w) => toks.has(w)).length / words.length : 0;
    });
    const terms = bm.length ? expansionTerms(idx, bm.slice(0, 3), own, 10) : [];
    return { ...q, tokens: words, bm25: bm.map((h, i) => ({ docId: h.docId, chunkId: h.chunkId, score: h.score, cov: cov[i] })), prfTerms: terms };
  });
  let t0 = performance.now();
  const qv = (await engine.embed(rows.map((r) => r.query))).vectors;
  const queryMs = (performance.now() - t0) / rows.length;
  f32(qv, 'queries.f32');
  const expanded = rows.map((r) => (r.prfTerms.length ? `${r.query} ${r.prfTerms.join(' ')}` : r.query));
  f32((await engine.embed(expanded)).vectors, 'queries-prf.f32');
  t0 = performance.now();
  f32((await engine.embed(docs.map((d) => d.title))).vectors, 'titles.f32');
  const titleMs = performance.now() - t0;
  // Distinct title + heading path per chunk (the heading field), one vector each.
  const heads = [...new Set(chunks.map((c) => `${title.get(c.docId)} — ${c.heading}`))];
  t0 = performance.now();
  f32((await engine.embed(heads)).vectors, 'headings.f32');
  const headMs = performance.now() - t0;
  const headOf = new Map(heads.map((h, i) => [h, i]));
  writeFileSync(
    join(out, 'meta.json'),
    JSON.stringify({
      model: modelId,
      dim: engine.config.dimension,
      docs,
      chunks: chunks.map((c) => ({ id: c.id, docId: c.docId, head: headOf.get(`${title.get(c.docId)} — ${c.heading}`) })),
      passages,
      queries: rows,
      cost: { queryEmbedMs: queryMs, titles: docs.length, titleEmbedMs: titleMs, headings: heads.length, headingEmbedMs: headMs },
    }),
  );
  console.log(`dumped ${passages.length} passages, ${rows.length} queries, ${docs.length} titles (${titleMs.toFixed(0)} ms), ${heads.length} headings (${headMs.toFixed(0)} ms) to ${out}`);
  await engine.dispose();
  idx.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
