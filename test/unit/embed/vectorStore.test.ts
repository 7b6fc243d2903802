import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexDb } from '../../../src/core/index/db';
import { IncrementalScanner } from '../../../src/core/scan/scanner';
import { EmbeddingEngine } from '../../../src/core/embed/engine';
import { createVectorChannel } from '../../../src/core/embed/channel';
import { recall } from '../../../src/core/search/recall';
import { passagesOf, VectorStore } from '../../../src/core/search/vector';
import { ensureBundledModel, ORT_WASM_DIR } from './helpers';
import { writeTinyModel } from './tinyModel';

const NOTES: Record<string, string> = {
  'payments.md': '# Charging cards\n\nAcquire a Redis mutex before charging so the card is not charged twice.\n',
  'sqlite.md': '# Index locking\n\nWhen SQLITE_BUSY comes back we retry with exponential back-off and jitter.\n',
  'deploy.md': '# Deployments\n\nCanary releases go to five percent of traffic first, then everyone.\n',
  'team.md': '# Team rituals\n\nWe hold a retrospective every second Friday afternoon.\n',
};

test('vectors are cached by (model, passage hash), follow the scanner, never mix models, and drive vector recall', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k0-vec-'));
  const notes = join(tmp, 'notes');
  mkdirSync(notes);
  for (const [name, body] of Object.entries(NOTES)) writeFileSync(join(notes, name), body);
  const idx = IndexDb.open(join(tmp, 'index.db'));
  const scanner = new IncrementalScanner(idx, notes);
  const dir = ensureBundledModel();
  const engine = await EmbeddingEngine.load(dir, { wasmDir: ORT_WASM_DIR });
  let calls = 0;
  const embedder = { embed: async (texts: string[]) => ((calls += texts.length), engine.embed(texts)) };
  try {
    await scanner.scan();
    const channel = createVectorChannel({ index: idx, embedder, modelId: engine.config.id, dimension: engine.config.dimension });
    assert.equal(channel.pending(), 4);
    const project = { index: idx, paths: { notesRoot: notes } } as unknown as Parameters<typeof recall>[0];
    // Cold: hybrid still answers (BM25 side) and says how much is pending.
    const cold = await recall(project, 'SQLITE_BUSY', { mode: 'hybrid', vectors: channel });
    assert.equal(cold.hits[0].path, 'sqlite.md');
    assert.equal(cold.pendingVectors, 4);
    assert.match(cold.warnings.join(' '), /4 chunk\(s\) still waiting/);

    assert.equal(await channel.catchUp(), 4);
    assert.equal(channel.pending(), 0);
    // The ranking itself, without the relevance floor (src/core/search/floor.ts): USE-lite puts this paraphrase
    // at cosine ≈ 0.45, below the floor, so with it the vector channel alone would show nothing here.
    const para = await recall(project, 'how do we avoid billing a customer two times', { mode: 'vector', vectors: { ...channel, floor: undefined }, limit: 4 });
    assert.equal(para.hits[0].path, 'payments.md', JSON.stringify(para.hits.map((h) => [h.path, h.explain])));
    assert.ok(para.hits[0].explain.vector!.cosine > para.hits[3].explain.vector!.cosine);

    // Only the edited note is embedded again; the untouched ones come from the cache.
    writeFileSync(join(notes, 'deploy.md'), '# Deployments\n\nBlue-green switches all traffic at once after smoke tests.\n');
    await scanner.scan();
    channel.store.refresh();
    assert.equal(channel.pending(), 1);
    calls = 0;
    await channel.catchUp();
    assert.equal(calls, 1);

    // Another model (other id and dimension) starts from zero and leaves the first model's vectors alone.
    const tiny = join(tmp, 'tiny');
    writeTinyModel(tiny, dir, 'tiny-test', 8);
    const tinyEngine = await EmbeddingEngine.load(tiny, { wasmDir: ORT_WASM_DIR });
    const other = new VectorStore(idx, 'tiny-test', 8);
    assert.equal(other.pending(), 4);
    await other.embedPending(async (t) => (await tinyEngine.embed(t)).vectors);
    await tinyEngine.dispose();
    assert.equal(other.pending(), 0);
    assert.equal(new VectorStore(idx, engine.config.id, 512).pending(), 0, 'the 512-d vectors are still there');
    assert.equal(Number(idx.get("SELECT COUNT(*) AS n FROM vectors WHERE model = 'tiny-test'")!.n), 4);
    // The same id reappearing with another dimension drops its old vectors instead of comparing across shapes.
    assert.equal(new VectorStore(idx, 'tiny-test', 16).pending(), 4);
    // prune: this model's dead passages (the old deploy.md text) and every other model's vectors go.
    const removed = channel.store.prune();
    assert.ok(removed >= 1);
    assert.equal(Number(idx.get('SELECT COUNT(*) AS n FROM vectors')!.n), 4);
  } finally {
    await engine.dispose();
    idx.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('passages stay inside the model window: long chunks are split, the title prefixes each piece', () => {
  const text = Array.from({ length: 130 }, (_, i) => `w${i}`).join(' ');
  const ps = passagesOf({ id: 1, docId: 2, title: 'Title', heading: 'H', text }, { windowWords: 60, prefix: 'title' });
  assert.equal(ps.length, 3);
  assert.ok(ps.every((p) => p.text.startsWith('Title\n') && p.chunkId === 1 && p.docId === 2));
  assert.equal(new Set(ps.map((p) => p.hash)).size, 3);
  const again = passagesOf({ id: 9, docId: 9, title: 'Title', heading: 'H', text }, { windowWords: 60, prefix: 'title' });
  assert.deepEqual(again.map((p) => p.hash), ps.map((p) => p.hash), 'same text → same cache keys');
  assert.equal(passagesOf({ id: 1, docId: 1, title: '', heading: '', text: '' }, { windowWords: 60, prefix: 'title' }).length, 1);
});
