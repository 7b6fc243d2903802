// The paraphrase channel's parts (issue #14 item 6) on a small real vault (temp dir, real scan, real SQLite FTS5):
// pseudo-relevance feedback (prf.ts), the lexical coverage behind the adaptive blend (paraphraseEvidence.ts,
// fusion.ts) and the field / aggregation variants (paraphraseFields.ts). Deterministic: no model, no timing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openProject, type Project } from '../../../src/core/project';
import { searchBm25, type ChannelHit } from '../../../src/core/search/bm25';
import { blendPasses, expansionTerms, withPrf } from '../../../src/core/search/prf';
import { coverage, lexicalCoverage, withCoverage } from '../../../src/core/search/paraphraseEvidence';
import { fieldedBm25 } from '../../../src/core/search/paraphraseFields';
import { withSynonyms } from '../../../src/core/search/expand';
import { feedbackVector } from '../../../src/core/search/prfVector';
import { DEFAULT_PASSAGES, passagesOf, VECTOR_SCHEMA_SQL } from '../../../src/core/search/vector';
import { DEFAULT_FUSION, fuse } from '../../../src/core/search/fusion';
import { recall } from '../../../src/core/search/recall';
import { tempVault, type TempVault } from '../../helpers/tempVault';

const NOTES: Record<string, string> = {
  'billing.md': '# Charging cards\nWhen a customer is charged, the payment gateway receives an idempotency key with the charge.\n',
  'idempotency.md': '# Idempotency keys at the gateway\nThe payment gateway stores every idempotency key for a day and rejects a repeated key.\n',
  'pool.md': '# Connection pooling\nPgBouncer in transaction mode keeps database connections bounded when the web tier scales out.\n',
  'tls.md': '# Certificate rotation\nTLS certificates are issued by cert-manager and renewed thirty days before they expire.\n',
  'disk.md': '# Runbook: disk full\nFind the largest directories with du, rotate the application logs and clear the image cache.\n',
  'long.md': '# Queue consumers\n## Ordering\nOne consumer per partition keeps ordering.\n\n## Backlog\nConsumers scale on the backlog of the partition.\n\n## Retries\nA failed message goes to a retry partition.\n',
};

let v: TempVault;
let p: Project;
const pathOf = (docId: number) => String(p.index.get('SELECT path FROM documents WHERE id = ?', [docId])?.path);
const paths = (hits: ChannelHit[]) => hits.map((h) => pathOf(h.docId));

before(async () => {
  v = tempVault(NOTES);
  p = openProject({ vault: v.root });
  await p.scan();
});
after(() => {
  p.close();
  v.cleanup();
});

test('PRF finds the note that shares no word with the query through the words of the note BM25 found', () => {
  const query = 'customer charged twice';
  const plain = paths(searchBm25(p.index, query, 10));
  assert.deepEqual(plain, ['billing.md'], 'BM25 alone finds only the note with the query words');
  const prf = paths(withPrf(searchBm25, { docs: 3, terms: 5, weight: 0.3 })(p.index, query, 10));
  assert.equal(prf[0], 'billing.md', 'the first pass stays ahead');
  assert.ok(prf.includes('idempotency.md'), `feedback words (gateway, idempotency …) reach the answer: ${prf}`);
});

test('expansion words: never the query words, stopwords or numbers, best first, at most the count asked', () => {
  const first = searchBm25(p.index, 'customer charged twice', 3);
  // Words only this note has (idf highest) come first; words two notes share follow.
  assert.deepEqual(expansionTerms(p.index, first, new Set(['customer', 'charged', 'twice']), 4).sort(), ['cards', 'charge', 'charging', 'receives']);
  const terms = expansionTerms(p.index, first, new Set(['customer', 'charged', 'twice']), 8);
  assert.equal(terms.length, 8);
  for (const t of terms) assert.ok(!['customer', 'charged', 'twice', 'the', 'with', 'when'].includes(t), t);
  assert.ok(terms.includes('idempotency') || terms.includes('gateway'), `${terms}`);
  assert.deepEqual(expansionTerms(p.index, [], new Set(), 4), []);
});

test('PRF never invents a match: nothing in, nothing out; a one-word query is left alone', () => {
  const search = withPrf(searchBm25, { docs: 3, terms: 10, weight: 0.3, minQueryTerms: 2 });
  assert.deepEqual(search(p.index, 'zzqxw nonexistent', 10), []);
  assert.deepEqual(search(p.index, 'PgBouncer', 10), searchBm25(p.index, 'PgBouncer', 10));
});

test('blendPasses: (1 − w)·first/max + w·second/max per document, ranks renumbered, first pass chunk kept', () => {
  const a: ChannelHit[] = [
    { docId: 1, chunkId: 10, rank: 1, score: 4 },
    { docId: 2, chunkId: 20, rank: 2, score: 2 },
  ];
  const b: ChannelHit[] = [
    { docId: 3, chunkId: 30, rank: 1, score: 9 },
    { docId: 2, chunkId: 21, rank: 2, score: 3 },
  ];
  const out = blendPasses(a, b, 0.25, 10);
  assert.deepEqual(out.map((h) => [h.docId, h.chunkId, h.rank, Number(h.score.toFixed(4))]), [
    [1, 10, 1, 0.75],
    [2, 20, 2, 0.4583], // 0.75·2/4 + 0.25·3/9
    [3, 30, 3, 0.25],
  ]);
  assert.equal(blendPasses(a, b, 0.25, 2).length, 2);
});

test('coverage: share of the query words in the best chunk; withCoverage keeps it beside the hit list', () => {
  assert.equal(coverage(p.index, 'PgBouncer', searchBm25(p.index, 'PgBouncer', 3)), 1);
  assert.equal(coverage(p.index, 'customer charged twice', searchBm25(p.index, 'customer charged twice', 3)), 2 / 3);
  assert.equal(coverage(p.index, 'zzqxw', []), 0);
  const hits = withCoverage(searchBm25)(p.index, 'gateway bananas', 10);
  assert.equal(lexicalCoverage(hits), 1 / 2);
  assert.equal(lexicalCoverage(searchBm25(p.index, 'gateway bananas', 10)), undefined);
});

test('adaptive blend: the BM25 weight falls with coverage, so a strong vector hit wins over a weak lexical one', () => {
  const lexical: ChannelHit[] = [{ docId: 1, chunkId: 1, rank: 1, score: 5 }];
  const vector: ChannelHit[] = [
    { docId: 2, chunkId: 2, rank: 1, score: 0.9 },
    { docId: 1, chunkId: 1, rank: 2, score: 0.3 },
  ];
  const adaptive = { ...DEFAULT_FUSION, adaptive: { min: 0.3 } };
  // No coverage figure: exactly the plain blend (0.8 · 1 + 0 vs 0.2 · 1): the lexical hit first.
  assert.deepEqual(fuse(lexical, vector, adaptive).map((r) => r.docId), fuse(lexical, vector, DEFAULT_FUSION).map((r) => r.docId));
  assert.equal(fuse(lexical, vector, adaptive)[0].docId, 1);
  // Coverage 0 (the lexical hit matched none of the content words): weight 0.3 → 0.3 vs 0.7, the vector hit first.
  const weak = withCoverage(() => lexical.map((h) => ({ ...h })))(p.index, 'zzqxw', 10);
  assert.equal(lexicalCoverage(weak), 0);
  const ranked = fuse(weak, vector, adaptive);
  assert.equal(ranked[0].docId, 2);
  assert.ok(Math.abs(ranked[0].score - 0.7) < 1e-9 && Math.abs(ranked[1].score - 0.3) < 1e-9, JSON.stringify(ranked));
});

test('fieldedBm25 with the product weights and one chunk per note is searchBm25; top-2 aggregation lifts the note that matches in two sections', () => {
  const same = fieldedBm25({ weights: { title: 8, heading: 3, body: 1 }, topChunks: 1, decay: 0 });
  for (const q of ['partition backlog', 'gateway key', 'certificates', 'zzqxw'])
    assert.deepEqual(same(p.index, q, 10).map((h) => [h.docId, h.chunkId]), searchBm25(p.index, q, 10).map((h) => [h.docId, h.chunkId]), q);
  const q = 'consumer partition';
  const one = same(p.index, q, 10).find((h) => pathOf(h.docId) === 'long.md')!;
  const two = fieldedBm25({ weights: { title: 8, heading: 3, body: 1 }, topChunks: 2, decay: 0.5 })(p.index, q, 10).find((h) => pathOf(h.docId) === 'long.md')!;
  assert.ok(two.score > one.score, `${two.score} > ${one.score}`);
});

test('hybrid recall takes its lexical channel from opts.lexical (the bench hook); bm25 mode stays plain BM25', async () => {
  const empty = { search: async () => [], pending: () => 0, fuse: (lex: ChannelHit[], vec: ChannelHit[]) => fuse(lex, vec, { method: 'blend', bm25Weight: 1 }) };
  const query = 'customer charged twice';
  const viaPrf = await recall(p, query, { mode: 'hybrid', vectors: empty, limit: 10, lexical: withPrf(searchBm25, { docs: 3, terms: 5, weight: 0.3 }) });
  assert.ok(viaPrf.hits.some((h) => h.path === 'idempotency.md'));
  const bm25 = await recall(p, query, { mode: 'bm25', limit: 10, lexical: withPrf(searchBm25, { docs: 3, terms: 5, weight: 0.3 }) });
  assert.deepEqual(bm25.hits.map((h) => h.path), ['billing.md']);
});

test('PRF coverage gate: a query whose words all sit in one top chunk keeps its first pass', () => {
  const gated = withPrf(searchBm25, { docs: 3, terms: 5, weight: 0.3, maxCoverage: 1 });
  assert.deepEqual(gated(p.index, 'payment gateway', 10), searchBm25(p.index, 'payment gateway', 10));
  assert.ok(paths(gated(p.index, 'customer charged twice', 10)).includes('idempotency.md'), 'a partly covered query still gets feedback');
});

test('synonym expansion: only query words expanded, blended below the original; nothing in, nothing out', () => {
  const lookup = (w: string) => ({ twice: ['repeated', 'twice'], customer: ['client'] })[w] ?? [];
  const search = withSynonyms(searchBm25, lookup, { perWord: 2, weight: 0.2 });
  const got = paths(search(p.index, 'customer charged twice', 10));
  assert.equal(got[0], 'billing.md');
  assert.ok(got.includes('idempotency.md'), `'repeated' reaches the note that says it: ${got}`);
  assert.deepEqual(search(p.index, 'zzqxw twice', 10), [], 'a synonym never answers a query the words did not');
  const noNew = withSynonyms(searchBm25, (w) => [w], { perWord: 2, weight: 0.2 });
  assert.deepEqual(noNew(p.index, 'customer charged', 10), searchBm25(p.index, 'customer charged', 10));
});

test('vector feedback (Rocchio): the query moves toward the stored vectors of the feedback chunks, stays unit length; no vector → undefined', () => {
  p.index.exec(VECTOR_SCHEMA_SQL);
  const chunk = p.index.get("SELECT c.id, c.doc_id, c.heading, c.text, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'idempotency.md'")!;
  const passages = passagesOf({ id: Number(chunk.id), docId: Number(chunk.doc_id), title: String(chunk.title), heading: String(chunk.heading), text: String(chunk.text) }, DEFAULT_PASSAGES);
  const stored = new Float32Array([0, 1, 0]);
  p.index.write(() => {
    for (const ps of passages) p.index.run('INSERT OR REPLACE INTO vectors(model, hash, vec) VALUES (?, ?, ?)', ['test-model', ps.hash, new Uint8Array(stored.buffer.slice(0))]);
  });
  const q = new Float32Array([1, 0, 0]);
  const moved = feedbackVector(p.index, 'test-model', q, [Number(chunk.id)], 1)!;
  assert.deepEqual([...moved].map((x) => Number(x.toFixed(6))), [0.707107, 0.707107, 0]);
  const half = feedbackVector(p.index, 'test-model', q, [Number(chunk.id)], 0.5)!;
  assert.ok(half[0] > half[1] && Math.abs(Math.hypot(...half) - 1) < 1e-6, `${[...half]}`);
  assert.equal(feedbackVector(p.index, 'other-model', q, [Number(chunk.id)], 1), undefined);
  assert.equal(feedbackVector(p.index, 'test-model', q, [], 1), undefined);
});
