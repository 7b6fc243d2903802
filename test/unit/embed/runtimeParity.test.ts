// One index may hold vectors from either runtime (same model id): native and WASM must embed the same texts to
// the same vectors. Texts: the 22 of parity.test.ts (Unicode, NFKC, near-empty, > 128 tokens), repeated here
// because that file's list is not exported. Each runtime runs in a worker thread of its own, as in the product:
// in one thread, onnxruntime-common would let a previously loaded onnxruntime-web serve the native "cpu" backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmbedWorker } from '../../../src/core/embed/embedWorker';
import { nativeBinaryDir } from '../../../src/core/embed/runtime';
import { ensureBundledModel, maxAbsDiff, ORT_WASM_DIR } from './helpers';

const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i} explains why the index lock retries with back-off.`).join(' ');
const TEXTS = [
  'hello world',
  'How do we lock a payment with Redis?',
  'Acquire a Redis mutex before charging',
  'Use a distributed lock so the card is not charged twice',
  'SQLITE_BUSY',
  'error[E0502]: cannot borrow `x` as mutable because it is also borrowed as immutable',
  'a',
  '?',
  ' ',
  '  leading and trailing spaces  ',
  'Ünïcödé façade naïve café',
  '中文文本嵌入测试',
  'Здравствуйте, как дела?',
  'مرحبا بالعالم',
  'emoji 😀🔥🚀 in the middle 👍',
  'tabs\tand\nnewlines\r\nmixed',
  'ﬁ ligature and full-width ＡＢＣ１２３ (NFKC)',
  '<s> reserved </s> looking extra_token_id_1',
  'x'.repeat(400),
  long,
  `${long} ${long}`,
  '#  ADR-0007: Use SQLite FTS5 for lexical search\n\nStatus: accepted. We chose FTS5 because it ships with bm25().',
];

test('onnxruntime-node and onnxruntime-web give the same vectors (max abs diff <= 1e-4) on the parity texts', { skip: nativeBinaryDir() ? false : 'no onnxruntime-node binary for this platform' }, async () => {
  const dir = ensureBundledModel();
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
