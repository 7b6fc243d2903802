import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexDb } from '../../../src/core/index/db';
import { IncrementalScanner } from '../../../src/core/scan/scanner';
import { VectorSession } from '../../../src/core/embed/vectorSession';
import { recall } from '../../../src/core/search/recall';
import { ensureBundledModel } from './helpers';

test('a long-lived vector session follows the scanner, survives a worker crash and degrades to BM25 without a model', async () => {
  const dir = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-vsession-'));
  const notes = join(tmp, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'cache.md'), '# Caching\n\nResponses are cached in Redis for five minutes.\n');
  const idx = IndexDb.open(join(tmp, 'index.db'));
  const scanner = new IncrementalScanner(idx, notes);
  const session = new VectorSession(idx, { model: dir, env: {} });
  const project = { index: idx, paths: { notesRoot: notes } } as unknown as Parameters<typeof recall>[0];
  try {
    await scanner.scan();
    const first = await session.prepare(10_000);
    assert.ok(first.channel && !first.warning);
    assert.equal(first.channel.pending(), 0);

    writeFileSync(join(notes, 'payments.md'), '# Charging cards\n\nAcquire a Redis mutex before charging so the card is not charged twice.\n');
    await scanner.scan();
    const second = await session.prepare(10_000);
    assert.equal(second.channel, first.channel, 'the same worker and store serve the whole session');
    assert.equal(second.channel!.pending(), 0, 'the new note was embedded');
    const r = await recall(project, 'never bill a customer two times', { mode: 'hybrid', vectors: second.channel });
    assert.equal(r.effectiveMode, 'hybrid');
    assert.equal(r.hits[0].path, 'payments.md');

    // Kill the worker: recall answers with BM25 and says why; the next call works again.
    await (session as unknown as { worker: { crashForTest(): Promise<void> } }).worker.crashForTest();
    const afterCrash = await recall(project, 'Redis', { mode: 'hybrid', vectors: second.channel });
    assert.ok(afterCrash.hits.length > 0);
    const again = await session.prepare(10_000);
    const ok = await recall(project, 'never bill a customer two times', { mode: 'hybrid', vectors: again.channel });
    assert.equal(ok.effectiveMode, 'hybrid');

    const broken = new VectorSession(idx, { model: join(tmp, 'no-model'), env: {} });
    const res = await broken.prepare();
    assert.equal(res.channel, undefined);
    assert.match(res.warning!, /model\.onnx is missing: answered with BM25 only/);
  } finally {
    await session.dispose();
    idx.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
