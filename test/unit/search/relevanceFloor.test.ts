// The relevance floor and honest coverage, through the real parts: the bundled ONNX model, a real SQLite index
// of a temp vault, the product's vector channel (createVectorChannel) and recall().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openProject, type Project } from '../../../src/core/project';
import { EmbeddingEngine } from '../../../src/core/embed/engine';
import { createVectorChannel, type VectorChannelHandle } from '../../../src/core/embed/channel';
import { recall, modeLabel } from '../../../src/core/search/recall';
import { relevanceFloor } from '../../../src/core/search/floor';
import { recallWithVectors } from '../../../src/core/host/recallPolicy';
import { tempVault, type TempVault } from '../../helpers/tempVault';
import { ensureBundledModel, ORT_WASM_DIR } from '../embed/helpers';

let v: TempVault;
let p: Project;
let engine: EmbeddingEngine;
let channel: VectorChannelHandle;

const NOTES: Record<string, string> = {
  'adr-001-pgbouncer.md': '# ADR-001 Connection pooling\nWe put PgBouncer in transaction mode in front of PostgreSQL so that the number of database connections stays bounded when the web tier scales out.\n',
  'adr-002-retries.md': '# ADR-002 Idempotent payment retries\nEvery charge request carries an idempotency key; the payment gateway rejects a repeated key, so a retried request never bills the customer twice.\n',
  'adr-003-tls.md': '# ADR-003 Certificate rotation\nTLS certificates are issued by cert-manager and renewed automatically thirty days before they expire.\n',
  'runbook-disk.md': '# Runbook: disk full on a worker node\nFind the largest directories with du, rotate the application logs and clear the container image cache.\n',
  'errors.md': '# Error catalogue\nZQ-7781 means the upstream ledger timed out.\n',
};

before(async () => {
  v = tempVault(NOTES);
  p = openProject({ vault: v.root });
  await p.scan();
  engine = await EmbeddingEngine.load(ensureBundledModel(), { wasmDir: ORT_WASM_DIR });
  channel = createVectorChannel({ index: p.index, embedder: engine, modelId: engine.config.id, dimension: engine.config.dimension });
});
after(async () => {
  await engine.dispose();
  p.close();
  v.cleanup();
});

/** Embeds `n` of the pending passages (all when undefined) and makes them searchable. */
async function embedSome(n?: number): Promise<void> {
  const todo = channel.store.pendingPassages().slice(0, n);
  const { vectors } = await engine.embed(todo.map((t) => t.text));
  channel.store.put(todo.map((t, i) => ({ hash: t.hash, vector: vectors[i] })));
  channel.store.refresh();
}

test('partial vectors: effectiveModeLabel says how much of the vault has vectors, rounded down; complete says plain hybrid', async () => {
  await embedSome(2);
  const { embedded, passages } = channel.store.size;
  assert.ok(embedded > 0 && embedded < passages, `${embedded}/${passages}`);
  const r = await recall(p, 'database connections', { mode: 'hybrid', vectors: channel });
  assert.equal(r.effectiveMode, 'hybrid');
  assert.deepEqual(r.coverage, { embedded, passages });
  assert.equal(r.effectiveModeLabel, `hybrid (partial: ${Math.floor((100 * embedded) / passages)} % of passages)`);
  const vec = await recall(p, 'database connections', { mode: 'vector', vectors: channel });
  assert.match(vec.effectiveModeLabel, /^vector \(partial: \d+ % of passages\)$/);
  const bm = await recall(p, 'database connections', { mode: 'bm25', vectors: channel });
  assert.equal(bm.effectiveModeLabel, 'bm25');
  assert.equal(bm.coverage, undefined);

  await embedSome();
  const full = await recall(p, 'database connections', { mode: 'hybrid', vectors: channel });
  assert.deepEqual(full.coverage, { embedded: channel.store.size.passages, passages: channel.store.size.passages });
  assert.equal(full.effectiveModeLabel, 'hybrid');
});

test('modeLabel never says 100 % while a passage is missing, and 0 % when nothing is embedded', () => {
  assert.equal(modeLabel('hybrid', { embedded: 999, passages: 1000 }), 'hybrid (partial: 99 % of passages)');
  assert.equal(modeLabel('hybrid', { embedded: 0, passages: 12 }), 'hybrid (partial: 0 % of passages)');
  assert.equal(modeLabel('hybrid', { embedded: 0, passages: 0 }), 'hybrid');
  assert.equal(modeLabel('hybrid', undefined), 'hybrid');
});

test('the floor: nonsense and off-topic queries return nothing in hybrid and vector mode', async () => {
  await embedSome();
  assert.ok(channel.floor !== undefined && channel.floor === relevanceFloor(engine.config.id), 'the bundled model has a calibrated floor');
  for (const q of ['zzqxw nonexistent', 'qwxz plorv', 'recipe for banana bread']) {
    for (const mode of ['hybrid', 'vector'] as const) {
      const r = await recall(p, q, { mode, vectors: channel, limit: 20 });
      assert.deepEqual(r.hits.map((h) => `${h.path} ${h.explain.vector?.cosine}`), [], `${mode} "${q}"`);
    }
  }
  // Without the floor the same channel does answer the nonsense query: the floor is what removes it.
  const unfloored = await recall(p, 'zzqxw nonexistent', { mode: 'vector', vectors: { ...channel, floor: undefined }, limit: 20 });
  assert.ok(unfloored.hits.length > 0);
});

test('the floor keeps a paraphrase with no word in common, and never drops a BM25 hit', async () => {
  await embedSome();
  // No word in common with adr-003, not even a Porter stem ("reissued" is not "issued"); USE-lite puts it at
  // cosine ≈ 0.60. (Paraphrases the model places below the floor, ≈ 0.45, are lost: see docs/embeddings.md,
  // "Relevance floor".)
  const para = await recall(p, 'https credentials get reissued a month early', { mode: 'hybrid', vectors: channel, limit: 3 });
  const top = para.hits[0];
  assert.equal(top?.path, 'adr-003-tls.md', JSON.stringify(para.hits.map((h) => [h.path, h.explain])));
  assert.equal(top.explain.bm25, undefined, 'the paraphrase is found by the vector channel alone');
  // An exact code BM25 finds stays whatever its cosine: the floor judges only what the vector channel alone found.
  const code = await recall(p, 'ZQ-7781', { mode: 'hybrid', vectors: channel, limit: 5 });
  const hit = code.hits.find((h) => h.path === 'errors.md');
  assert.ok(hit?.explain.bm25, JSON.stringify(code.hits));
  const cos = hit.explain.vector?.cosine;
  assert.ok(cos === undefined || cos < channel.floor!, `the test needs a BM25 hit below the floor (cosine ${cos})`);
});

test('a wrapped channel (the console swaps the fusion) keeps the floor and the coverage', async () => {
  await embedSome();
  const adapt = (c: typeof channel) => ({ search: c.search, pending: c.pending, fuse: c.fuse });
  const r = await recallWithVectors(p, 'zzqxw nonexistent', { mode: 'hybrid', limit: 20, adaptChannel: adapt }, async () => ({ channel }));
  assert.deepEqual(r.hits, []);
  assert.deepEqual(r.coverage, { embedded: channel.store.size.passages, passages: channel.store.size.passages });
});
