// Runtime choice (src/core/embed/runtime.ts): K0MARU_EMBED_RUNTIME parsing, native where its binary is shipped,
// WASM when asked, and the engine reporting what it runs on. The packaged layouts (a binary present, absent or
// corrupt) are tested in runtimePackage.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmbeddingEngine } from '../../../src/core/embed/engine';
import { nativeBinaryDir, nativeFolderName, requestedRuntime, selectRuntime } from '../../../src/core/embed/runtime';
import { ensureBundledModel, ORT_WASM_DIR } from './helpers';

test('K0MARU_EMBED_RUNTIME: wasm | native | auto (unset, empty, any case); anything else is INVALID_ARGUMENT', () => {
  assert.equal(requestedRuntime({}), 'auto');
  assert.equal(requestedRuntime({ K0MARU_EMBED_RUNTIME: '' }), 'auto');
  assert.equal(requestedRuntime({ K0MARU_EMBED_RUNTIME: ' Native ' }), 'native');
  assert.equal(requestedRuntime({ K0MARU_EMBED_RUNTIME: 'WASM' }), 'wasm');
  assert.equal(requestedRuntime({ K0MARU_EMBED_RUNTIME: 'auto' }), 'auto');
  assert.throws(() => requestedRuntime({ K0MARU_EMBED_RUNTIME: 'cuda' }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT' && /cuda/.test(e.message));
});

test('the platform folder name is what vsce calls the target', () => {
  assert.equal(nativeFolderName('linux', 'x64'), 'linux-x64');
  assert.equal(nativeFolderName('win32', 'arm64'), 'win32-arm64');
});

const shipped = nativeBinaryDir() !== undefined;

test('auto picks onnxruntime-node where its binary is installed; wasm when asked', { skip: shipped ? false : 'no onnxruntime-node binary for this platform' }, () => {
  const auto = selectRuntime('auto');
  assert.equal(auto.runtime.name, 'native');
  assert.equal(auto.fallbackReason, undefined);
  assert.deepEqual(auto.runtime.executionProviders, ['cpu']);
  const wasm = selectRuntime('wasm');
  assert.equal(wasm.runtime.name, 'wasm');
  assert.deepEqual(wasm.runtime.executionProviders, ['wasm']);
});

test('the engine reports its runtime and embeds to unit vectors on each', { skip: shipped ? false : 'no onnxruntime-node binary for this platform' }, async () => {
  const dir = ensureBundledModel();
  for (const runtime of ['native', 'wasm'] as const) {
    const engine = await EmbeddingEngine.load(dir, { runtime, wasmDir: ORT_WASM_DIR });
    try {
      assert.equal(engine.runtime, runtime);
      assert.equal(engine.fallbackReason, undefined);
      const { vectors } = await engine.embed(['ADR-0007: SQLite FTS5 for lexical search', '']);
      for (const v of vectors) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    } finally {
      await engine.dispose();
    }
  }
});

test('a broken model folder is MODEL_UNAVAILABLE on the native runtime too (no WASM retry hides it when forced)', { skip: shipped ? false : 'no onnxruntime-node binary' }, async () => {
  const { mkdtempSync, cpSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const tmp = mkdtempSync(join(tmpdir(), 'k0-runtime-'));
  try {
    cpSync(ensureBundledModel(), tmp, { recursive: true });
    writeFileSync(join(tmp, 'model.onnx'), 'garbage, not a protobuf');
    await assert.rejects(EmbeddingEngine.load(tmp, { runtime: 'native' }), (e: Error & { code?: string }) => e.code === 'MODEL_UNAVAILABLE' && /cannot be loaded/.test(e.message));
    // auto: native fails, WASM is tried once and fails too — still one coded error, no crash.
    await assert.rejects(EmbeddingEngine.load(tmp, { runtime: 'auto', wasmDir: ORT_WASM_DIR }), (e: Error & { code?: string }) => e.code === 'MODEL_UNAVAILABLE');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

// Last in this file: it leaves this process unable to load native (as it would be in such a thread).
test('after onnxruntime-web in the same thread, native is refused (its "cpu" backend would be WASM), never silently WASM', { skip: shipped ? false : 'no onnxruntime-node binary' }, async () => {
  const { resetNativeRuntimeForTest } = await import('../../../src/core/embed/runtime');
  selectRuntime('wasm');
  resetNativeRuntimeForTest();
  assert.throws(() => selectRuntime('native'), (e: Error & { code?: string }) => e.code === 'MODEL_UNAVAILABLE' && /loaded first/.test(e.message));
  const auto = selectRuntime('auto');
  assert.equal(auto.runtime.name, 'wasm');
  assert.match(auto.fallbackReason ?? '', /loaded first/);
});
