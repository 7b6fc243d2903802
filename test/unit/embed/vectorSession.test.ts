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
    // Without the relevance floor (floor.ts): USE-lite puts this paraphrase of a one-line note at cosine ≈ 0.3.
    const r = await recall(project, 'never bill a customer two times', { mode: 'hybrid', vectors: { ...second.channel!, floor: undefined } });
    assert.equal(r.effectiveMode, 'hybrid');
    assert.equal(r.hits[0].path, 'payments.md');

    // Kill the worker: recall answers with BM25 and says why; the next call works again.
    await (session as unknown as { loader: { ready: { worker: { crashForTest(): Promise<void> } } } }).loader.ready.worker.crashForTest();
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

test('a background fill embeds the rest of the vault in steps between recalls, says when it is covered, and stops on dispose', { timeout: 180_000 }, async () => {
  const dir = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-vfill-'));
  const notes = join(tmp, 'notes');
  mkdirSync(notes);
  for (let i = 0; i < 120; i++) writeFileSync(join(notes, `n${i}.md`), `# Note ${i}\n\nTopic ${i % 7}: how service ${i} retries a request and records idempotency keys.\n`);
  const idx = IndexDb.open(join(tmp, 'index.db'));
  await new IncrementalScanner(idx, notes).scan();
  const session = new VectorSession(idx, { model: dir, env: {} });
  const logs: string[] = [];
  try {
    assert.equal(await session.warmUp(), true); // the model loads outside any recall's budget ...
    const first = await session.prepare(1); // ... so a tiny budget leaves most passages waiting
    const left = first.channel!.pending();
    assert.ok(left > 20, `expected passages left after a 1 ms budget, got ${left}`);
    const covered = new Promise<void>((resolve) => session.fillInBackground({ stepMs: 200, onCovered: resolve, log: (l, m) => logs.push(`${l}: ${m}`) }));
    session.fillInBackground({ stepMs: 200, onCovered: () => assert.fail('a second fill must not start while one runs') });
    // A recall's own prepare meanwhile is queued between steps, never run concurrently with one.
    const during = await session.prepare(50);
    assert.ok(during.channel);
    await covered;
    assert.equal(first.channel!.pending(), 0);
    assert.ok(logs.some((l) => /^info: embedding \d+ passage\(s\) in the background$/.test(l)), logs.join('\n'));
    assert.ok(logs.some((l) => /covers the whole vault/.test(l)));
    const n = Number(idx.get('SELECT COUNT(*) AS n FROM chunks')!.n);
    const vectors = Number(idx.get('SELECT COUNT(*) AS n FROM vectors')!.n);
    assert.ok(vectors >= n, `${vectors} vectors for ${n} chunks`);

    // A new note after the fill: the next prepare sees it; a fill started and the session disposed at once stops.
    writeFileSync(join(notes, 'late.md'), '# Late\n\nA note written after the vault was covered.\n');
    await new IncrementalScanner(idx, notes).scan();
    await session.prepare(0);
    session.fillInBackground({ stepMs: 200, onCovered: () => {} });
    await session.dispose();
    const after = await session.prepare(10);
    assert.equal(after.channel, undefined);
    assert.match(after.warning!, /closed/);
  } finally {
    await session.dispose();
    idx.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
