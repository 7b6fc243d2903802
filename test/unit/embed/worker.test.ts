import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbedWorker } from '../../../src/core/embed/embedWorker';
import { EmbeddingEngine } from '../../../src/core/embed/engine';
import { readModelFolder } from '../../../src/core/embed/modelConfig';
import { isK0Error } from '../../../src/core/errors';
import { ensureBundledModel, maxAbsDiff, ORT_WASM_DIR } from './helpers';

test('the worker embeds like the in-process engine, and a crash fails in-flight calls then restarts', async () => {
  const dir = ensureBundledModel();
  const worker = new EmbedWorker({ modelDir: dir, threads: 1, wasmDir: ORT_WASM_DIR });
  const engine = await EmbeddingEngine.load(dir, { wasmDir: ORT_WASM_DIR });
  try {
    const cfg = await worker.start();
    assert.equal(cfg.id, 'use-lite-en-v1-int8');
    assert.equal(cfg.dimension, 512);
    const texts = ['retry with back-off', '', 'é'.repeat(300)];
    const viaWorker = await worker.embed(texts);
    const direct = await engine.embed(texts);
    texts.forEach((_, i) => assert.ok(maxAbsDiff(viaWorker.vectors[i], direct.vectors[i]) < 1e-6));
    assert.deepEqual(viaWorker.truncated, direct.truncated);

    // A call in flight when the worker dies gets a clear, typed error.
    const inFlight = worker.embed(Array.from({ length: 64 }, (_, i) => `call ${i} dies with the worker `.repeat(10)));
    await worker.crashForTest();
    await assert.rejects(inFlight, (e: unknown) => isK0Error(e) && e.code === 'MODEL_UNAVAILABLE' && e.data?.reason === 'worker-crashed');
    assert.equal(worker.crashes, 1);
    // The next call starts a fresh worker.
    const again = await worker.embed(['retry with back-off']);
    // Alone, not beside the other two texts: the int8 model quantises activations per call, so a text's vector
    // moves slightly with what shares its batch (runtimeInt8.test.ts); the same call gives the same vector.
    const directAlone = await engine.embed(['retry with back-off']);
    assert.ok(maxAbsDiff(again.vectors[0], directAlone.vectors[0]) < 1e-6);
  } finally {
    await worker.dispose();
    await engine.dispose();
  }
});

test('missing or corrupt model → MODEL_UNAVAILABLE, from the folder check and from the worker', async () => {
  const dir = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-model-'));
  try {
    assert.throws(() => readModelFolder(join(tmp, 'nope')), (e: unknown) => isK0Error(e) && e.code === 'MODEL_UNAVAILABLE' && /model\.onnx is missing/.test(e.message));

    const corrupt = join(tmp, 'corrupt');
    cpSync(dir, corrupt, { recursive: true });
    truncateSync(join(corrupt, 'model.onnx'), 1000);
    const w = new EmbedWorker({ modelDir: corrupt, threads: 1, wasmDir: ORT_WASM_DIR });
    await assert.rejects(w.embed(['x']), (e: unknown) => isK0Error(e) && e.code === 'MODEL_UNAVAILABLE' && /cannot be loaded/.test(e.message));
    await w.dispose();

    const badConfig = join(tmp, 'badconfig');
    cpSync(dir, badConfig, { recursive: true });
    writeFileSync(join(badConfig, 'k0model.json'), '{"id":"x","dimension":-1}');
    assert.throws(() => readModelFolder(badConfig), (e: unknown) => isK0Error(e) && e.code === 'MODEL_UNAVAILABLE' && /dimension/.test(e.message));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
