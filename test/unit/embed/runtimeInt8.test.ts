// The default model is the int8 (dynamically quantised) conversion of USE-lite (scripts/convert-model.mjs --int8).
// It must run on both runtimes, stay close to the float conversion (whose parity with the package's TF.js runtime
// parity.test.ts checks), and its vectors must never be read as the float model's: they carry another model id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbedWorker } from '../../../src/core/embed/embedWorker';
import { readModelFolder } from '../../../src/core/embed/modelConfig';
import { BUNDLED_MODEL_ID, FLOAT_MODEL_ID, bundledModelDir, floatModelDir, resolveModelDir } from '../../../src/core/embed/modelLocation';
import { nativeBinaryDir } from '../../../src/core/embed/runtime';
import { IndexDb } from '../../../src/core/index/db';
import { IncrementalScanner } from '../../../src/core/scan/scanner';
import { VectorStore } from '../../../src/core/search/vector';
import { ensureBundledModel, ensureFloatModel, ORT_WASM_DIR, PARITY_TEXTS } from './helpers';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

test('the default model is the int8 conversion: its own id, MatMulInteger in the graph, about half the float file', () => {
  const int8 = ensureBundledModel();
  const float = ensureFloatModel();
  assert.equal(int8, bundledModelDir());
  assert.equal(float, floatModelDir());
  assert.equal(readModelFolder(int8).config.id, BUNDLED_MODEL_ID);
  assert.equal(readModelFolder(float).config.id, FLOAT_MODEL_ID);
  assert.notEqual(BUNDLED_MODEL_ID, FLOAT_MODEL_ID);
  const graph = readFileSync(join(int8, 'model.onnx'));
  assert.ok(graph.includes('MatMulInteger') && graph.includes('DynamicQuantizeLinear'), 'int8 matrix products in the graph');
  assert.ok(!readFileSync(join(float, 'model.onnx')).includes('MatMulInteger'), 'the float model stays float');
  assert.ok(statSync(join(int8, 'model.onnx')).size < 0.55 * statSync(join(float, 'model.onnx')).size, 'int8 weights (the embedding table stays float)');
  // Both ids resolve to their folders; no id means the default.
  assert.equal(resolveModelDir(undefined, '/nonexistent', {}), int8);
  assert.equal(resolveModelDir(FLOAT_MODEL_ID, '/nonexistent', {}), float);
});

test('int8 vectors: close to the float model on the parity texts, and the same on native and WASM', async () => {
  const int8 = ensureBundledModel();
  const float = ensureFloatModel();
  const wasm = new EmbedWorker({ modelDir: int8, threads: 1, batchSize: 8, runtime: 'wasm', wasmDir: ORT_WASM_DIR });
  const ref = new EmbedWorker({ modelDir: float, threads: 1, batchSize: 8, runtime: 'wasm', wasmDir: ORT_WASM_DIR });
  const native = nativeBinaryDir() ? new EmbedWorker({ modelDir: int8, threads: 2, batchSize: 8, runtime: 'native' }) : undefined;
  try {
    await Promise.all([wasm.start(), ref.start(), native?.start()]);
    const q = (await wasm.embed(PARITY_TEXTS)).vectors;
    const f = (await ref.embed(PARITY_TEXTS)).vectors;
    let worstFloat = 1;
    PARITY_TEXTS.forEach((text, i) => {
      assert.ok(Math.abs(Math.hypot(...q[i]) - 1) < 1e-4, 'unit length');
      const c = cosine(q[i], f[i]);
      worstFloat = Math.min(worstFloat, c);
      assert.ok(c >= 0.99, `int8 vs float cosine ${c} for ${JSON.stringify(text.slice(0, 40))}`);
    });
    let worstRuntime = 1;
    if (native) {
      assert.equal(native.runtime, 'native');
      const n = (await native.embed(PARITY_TEXTS)).vectors;
      // Integer products are exact on both; only the float parts around them round differently.
      PARITY_TEXTS.forEach((text, i) => {
        const c = cosine(n[i], q[i]);
        worstRuntime = Math.min(worstRuntime, c);
        assert.ok(c >= 0.999, `int8 native vs wasm cosine ${c} for ${JSON.stringify(text.slice(0, 40))}`);
      });
    }
    console.log(`int8: min cosine to float ${worstFloat.toFixed(5)}, native vs wasm ${native ? worstRuntime.toFixed(5) : 'skipped (no native binary)'}`);
  } finally {
    await Promise.all([wasm.dispose(), ref.dispose(), native?.dispose()]);
  }
});

test('vectors of the float model are never read as the int8 model’s: the int8 store starts with every passage pending', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k0-int8-ids-'));
  const vault = join(tmp, 'notes');
  mkdirSync(vault);
  writeFileSync(join(vault, 'lock.md'), '# Payment lock\n\nAcquire a Redis mutex before charging so the card is not charged twice.\n');
  const db = IndexDb.open(join(tmp, 'index.db'));
  try {
    await new IncrementalScanner(db, vault).scan({});
    const floatStore = new VectorStore(db, FLOAT_MODEL_ID, 512);
    const todo = floatStore.pendingPassages();
    assert.ok(todo.length > 0);
    floatStore.put(todo.map((p) => ({ hash: p.hash, vector: new Float32Array(512).fill(1 / Math.sqrt(512)) })));
    assert.equal(new VectorStore(db, FLOAT_MODEL_ID, 512).pending(), 0);
    const int8Store = new VectorStore(db, BUNDLED_MODEL_ID, 512);
    assert.equal(int8Store.pending(), todo.length, 'no float vector counts for the int8 model');
    assert.equal(int8Store.search(new Float32Array(512).fill(1 / Math.sqrt(512)), 5).length, 0);
  } finally {
    db.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
