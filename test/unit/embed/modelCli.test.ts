import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBundledModel } from './helpers';
import { writeTinyModel } from './tinyModel';
import { runCliCaptured } from '../../helpers/cli';

const cli = (args: string[], env: NodeJS.ProcessEnv) => runCliCaptured(args, { cwd: tmpdir(), env });

test('k0maru model install | list | info through the CLI adapter', async () => {
  const bundled = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-model-cli-'));
  const env = { K0MARU_MODELS_DIR: join(tmp, 'models') };
  try {
    writeTinyModel(join(tmp, 'src'), bundled, 'tiny-cli', 8);
    const inst = await cli(['model', 'install', join(tmp, 'src'), '--json'], env);
    assert.equal(inst.code, 0, inst.err);
    assert.equal(JSON.parse(inst.out).id, 'tiny-cli');
    const list = await cli(['model', 'list', '--json'], env);
    assert.deepEqual(JSON.parse(list.out).map((m: { id: string }) => m.id), ['use-lite-en-v1-int8', 'tiny-cli']);
    const info = await cli(['model', 'info', '--model', 'tiny-cli', '--json'], env);
    assert.equal(JSON.parse(info.out).dimension, 8);
    const bad = await cli(['model', 'install', join(tmp, 'nothing-here')], env);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /not a URL or a model folder/);
    const missing = await cli(['model', 'info', '--model', 'not-installed'], env);
    assert.equal(missing.code, 4);
    assert.match(missing.err, /MODEL_UNAVAILABLE/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
