import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';
import { seedVectors } from './helpers';
import { nativeBinaryDir } from '../../../src/core/embed/runtime';

/**
 * Issue 14 item 4 through the built one-shot CLI: with every vector stored, `recall --mode hybrid` answers hybrid,
 * writes the vector snapshot beside the index after its answer, and the next call reads it; a damaged snapshot or
 * a missing model folder never stops recall from answering. Made-up vectors (seedVectors) stand in for real ones:
 * the query is embedded by the real model, on this thread where the native runtime is shipped.
 */
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };
const NOTES = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\nThe ledger shard ${i} replicates through the broker queue.\n`]));

type J = { effectiveMode: string; effectiveModeLabel: string; warnings: string[]; hits: { path: string }[] };

test('one-shot hybrid recall: answers hybrid, writes the snapshot after answering, reads it next time, survives a damaged one', { timeout: 300_000 }, async () => {
  ensureBuilt();
  const v = tempVault(NOTES);
  await seedVectors(v.root, 10_000);
  const run = (env: NodeJS.ProcessEnv = ENV) => spawnSync(process.execPath, [DIST_CLI, 'recall', 'ledger shard', '--mode', 'hybrid', '--budget-ms', '600000', '--json', '--vault', v.root], { env, encoding: 'utf8', timeout: 280_000 });
  const snapshotFile = () => {
    const dir = join(v.root, '.k0maru');
    const f = readdirSync(dir).find((n) => /^vectors\..*\.bin$/.test(n));
    return f ? join(dir, f) : undefined;
  };
  try {
    assert.equal(snapshotFile(), undefined, 'no snapshot before the first one-shot');
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    const a = JSON.parse(first.stdout) as J;
    assert.equal(a.effectiveModeLabel, 'hybrid', a.warnings.join(' | '));
    const file = snapshotFile();
    assert.ok(file, 'the first call wrote the snapshot');
    const written = statSync(file).mtimeMs;

    const second = run();
    assert.equal(second.status, 0, second.stderr);
    const b = JSON.parse(second.stdout) as J;
    assert.deepEqual(b.hits.map((h) => h.path), a.hits.map((h) => h.path));
    assert.equal(statSync(file).mtimeMs, written, 'read, not rewritten: it was current');

    writeFileSync(file, 'not a snapshot');
    const third = run();
    assert.equal(third.status, 0, third.stderr);
    const c = JSON.parse(third.stdout) as J;
    assert.equal(c.effectiveModeLabel, 'hybrid');
    assert.deepEqual(c.hits.map((h) => h.path), a.hits.map((h) => h.path));
    assert.ok(statSync(file).size > 1000, 'rebuilt from the index');

    // A missing model folder: BM25 with the reason, exit 0.
    const gone = run({ ...ENV, K0MARU_MODEL: join(v.root, 'no-such-model') });
    assert.equal(gone.status, 0, gone.stderr);
    const d = JSON.parse(gone.stdout) as J;
    assert.equal(d.effectiveMode, 'bm25');
    assert.ok(d.warnings.some((w) => /BM25 only/.test(w)), d.warnings.join(' | '));
    assert.ok(d.hits.length > 0);
  } finally {
    v.cleanup();
  }
});

test('the one-shot embeds the query without a worker thread where the native runtime is shipped', { skip: nativeBinaryDir() ? false : 'no onnxruntime-node binary here' }, async () => {
  const { ModelLoader } = await import('../../../src/core/embed/modelLoader');
  const { EmbedWorker } = await import('../../../src/core/embed/embedWorker');
  const inThread = new ModelLoader({ inThread: true, env: {} });
  const worker = new ModelLoader({ env: {} });
  try {
    const [a, b] = [await inThread.load(), await worker.load()];
    assert.ok(!(a.worker instanceof EmbedWorker), 'in-thread');
    assert.ok(b.worker instanceof EmbedWorker);
    const [va, vb] = [(await a.worker.embed(['payment lock with redis'])).vectors[0], (await b.worker.embed(['payment lock with redis'])).vectors[0]];
    assert.equal(va.length, vb.length);
    assert.ok(Math.max(...va.map((x, i) => Math.abs(x - vb[i]))) < 1e-4, 'the same vector either way');
  } finally {
    await inThread.dispose();
    await worker.dispose();
  }
});
