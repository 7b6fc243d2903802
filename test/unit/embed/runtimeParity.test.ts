// One index may hold vectors from either runtime (same model id): native and WASM must embed the same texts to
// the same vectors. Texts: the 22 of parity.test.ts (Unicode, NFKC, near-empty, > 128 tokens), repeated here
// because that file's list is not exported. Each runtime runs in a worker thread of its own, as in the product:
// in one thread, onnxruntime-common would let a previously loaded onnxruntime-web serve the native "cpu" backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmbedWorker } from '../../../src/core/embed/embedWorker';
import { nativeBinaryDir } from '../../../src/core/embed/runtime';
import { ensureFloatModel, maxAbsDiff, ORT_WASM_DIR, PARITY_TEXTS } from './helpers';

const TEXTS = PARITY_TEXTS;

test('onnxruntime-node and onnxruntime-web give the same vectors (max abs diff <= 1e-4) on the parity texts', { skip: nativeBinaryDir() ? false : 'no onnxruntime-node binary for this platform' }, async () => {
  const dir = ensureFloatModel();
  const wasm = new EmbedWorker({ modelDir: dir, threads: 1, batchSize: 8, runtime: 'wasm', wasmDir: ORT_WASM_DIR });
  const native = new EmbedWorker({ modelDir: dir, threads: 2, batchSize: 8, runtime: 'native' });
  try {
    const [wasmConfig, nativeConfig] = await Promise.all([wasm.start(), native.start()]);
    assert.equal(wasm.runtime, 'wasm');
    assert.equal(native.runtime, 'native');
    assert.equal(nativeConfig.id, wasmConfig.id, 'same model id: one index holds both');
    const a = (await wasm.embed(TEXTS)).vectors;
    const b = (await native.embed(TEXTS)).vectors;
    let worst = 0;
    TEXTS.forEach((text, i) => {
      const d = maxAbsDiff(a[i], b[i]);
      worst = Math.max(worst, d);
      assert.ok(d <= 1e-4, `native vs wasm max abs diff ${d} for ${JSON.stringify(text.slice(0, 40))}`);
    });
    // Different batch composition on the native side (one text alone) changes nothing either.
    const alone = (await native.embed([TEXTS[19]])).vectors[0];
    assert.ok(maxAbsDiff(alone, a[19]) <= 1e-4);
    console.log(`runtime parity: ${TEXTS.length} texts, native vs wasm max abs diff ${worst.toExponential(2)}`);
  } finally {
    await Promise.all([wasm.dispose(), native.dispose()]);
  }
});
