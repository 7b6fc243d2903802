import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { installModel, listInstalledModels } from '../../../src/core/embed/install';
import { EmbeddingEngine } from '../../../src/core/embed/engine';
import { resolveModelDir } from '../../../src/core/embed/modelLocation';
import { isK0Error } from '../../../src/core/errors';
import { ensureBundledModel, ORT_WASM_DIR } from './helpers';
import { writeTinyModel } from './tinyModel';

/** Serves `root` on loopback; /truncated/ announces more bytes than it sends for model.onnx. */
async function serve(root: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = join(root, path);
    if (path.includes('..') || !existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    const body = readFileSync(file);
    if (path.startsWith('/truncated/') && path.endsWith('model.onnx')) {
      res.writeHead(200, { 'content-length': String(body.length) });
      res.write(body.subarray(0, body.length >> 1));
      res.destroy(); // the connection drops mid-file
      return;
    }
    res.writeHead(200, { 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const fileHash = (dir: string) => readFileSync(join(dir, 'model.onnx')).toString('base64').slice(0, 64);

test('model install: loopback download with progress and checksums, atomic, failures leave the old model working', async () => {
  const bundled = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-install-'));
  const www = join(tmp, 'www');
  const modelsRoot = join(tmp, 'models');
  writeTinyModel(join(www, 'good'), bundled, 'tiny-test', 8);
  // Same id, different weights: what a broken upgrade would try to replace the good model with.
  writeTinyModel(join(www, 'v2'), bundled, 'tiny-test', 16);
  cpSync(join(www, 'v2'), join(www, 'truncated'), { recursive: true });
  cpSync(join(www, 'v2'), join(www, 'badsum'), { recursive: true });
  writeFileSync(join(www, 'badsum', 'tokenizer.json'), readFileSync(join(www, 'badsum', 'tokenizer.json'), 'utf8').replace('"Unigram"', '"Unigram" '));
  cpSync(join(www, 'v2'), join(www, 'missing'), { recursive: true });
  rmSync(join(www, 'missing', 'model.onnx'));
  const { url, server } = await serve(www);
  try {
    const progress: number[] = [];
    const res = await installModel(`${url}/good/`, { modelsRoot, onProgress: (p) => p.file === 'model.onnx' && progress.push(p.received) });
    assert.equal(res.id, 'tiny-test');
    assert.equal(res.replaced, false);
    assert.ok(progress.length >= 1 && progress.at(-1) === readFileSync(join(www, 'good', 'model.onnx')).length);
    assert.deepEqual(listInstalledModels(modelsRoot).map((m) => m.id), ['tiny-test']);
    const installedHash = fileHash(res.dir);

    // The installed model really runs: mean pooling + normalisation over 8 dimensions.
    const engine = await EmbeddingEngine.load(resolveModelDir('tiny-test', modelsRoot, {}), { wasmDir: ORT_WASM_DIR });
    const { vectors } = await engine.embed(['hello world', 'x']);
    await engine.dispose();
    assert.equal(vectors[0].length, 8);
    assert.ok(Math.abs(Math.hypot(...vectors[0]) - 1) < 1e-5);

    for (const [path, pattern] of [
      ['truncated', /truncated|interrupted/],
      ['badsum', /tokenizer\.json checksum mismatch/],
      ['missing', /HTTP 404/],
    ] as const) {
      await assert.rejects(installModel(`${url}/${path}/`, { modelsRoot }), (e: unknown) => isK0Error(e) && pattern.test(e.message), path);
      assert.equal(fileHash(res.dir), installedHash, `${path}: the old model is untouched`);
      assert.deepEqual(readdirSync(modelsRoot), ['tiny-test'], `${path}: no staging folder left behind`);
    }
    await assert.rejects(installModel(`${url}/v2/`, { modelsRoot, sha256: '0'.repeat(64) }), /k0model\.json checksum mismatch/);
    await assert.rejects(installModel('http://127.0.0.1:1/nothing/', { modelsRoot }), (e: unknown) => isK0Error(e) && e.code === 'IO_ERROR');

    // A good upgrade (from a local folder this time) replaces the model atomically.
    const up = await installModel(join(www, 'v2'), { modelsRoot });
    assert.equal(up.replaced, true);
    assert.equal(JSON.parse(readFileSync(join(up.dir, 'k0model.json'), 'utf8')).dimension, 16);
    assert.deepEqual(readdirSync(modelsRoot), ['tiny-test']);
    assert.throws(() => resolveModelDir('not-installed', modelsRoot, {}), (e: unknown) => isK0Error(e) && e.code === 'MODEL_UNAVAILABLE');
  } finally {
    server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
