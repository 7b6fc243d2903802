import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProjectHost, ScanGate, recallWithVectors, type ScanEvent } from '../../../src/core/host';
import { tempVault } from '../../helpers/tempVault';

/** A scan function the test finishes by hand, so "during a scan" is a fact, not a timing. */
function manualScans() {
  const runs: { reason: string; finish(n: number): void; fail(e: Error): void }[] = [];
  const started: (() => void)[] = [];
  const run = (reason: string) =>
    new Promise<number>((resolve, reject) => {
      runs.push({ reason, finish: resolve, fail: reject });
      for (const s of started.splice(0)) s();
    });
  const nextStart = () => new Promise<void>((resolve) => started.push(resolve));
  return { runs, run, nextStart };
}

/** A gate whose first scan has started and not finished; `first` is that scan's caller. */
async function gateWithRunningScan() {
  const m = manualScans();
  const gate = new ScanGate<number>(m.run);
  const started = m.nextStart();
  const first = gate.request();
  await started;
  return { ...m, gate, first };
}

const isCancelled = (e: unknown) => (e as { code?: string }).code === 'CANCELLED';

test('ScanGate: a request made during a scan gets a scan that started after it; the burst shares one follow-up', async () => {
  const m = manualScans();
  const gate = new ScanGate<number>(m.run);
  const started = m.nextStart();
  const first = gate.request({ reason: 'first' });
  // Same turn, before the scan began reading: joins it.
  const joined = gate.request({ reason: 'joined' });
  await started;
  assert.equal(m.runs.length, 1);
  // Now the scan is reading: whatever these callers wrote before asking may have been missed by it.
  const during = [gate.request({ reason: 'during-1' }), gate.request({ reason: 'during-2' }), gate.request()];
  const second = m.nextStart();
  m.runs[0]!.finish(1);
  assert.equal(await first, 1);
  assert.equal(await joined, 1);
  await second;
  assert.equal(m.runs.length, 2, 'one follow-up for the whole burst');
  assert.equal(m.runs[1]!.reason, 'during-1', 'the follow-up is named by its first caller');
  m.runs[1]!.finish(2);
  assert.deepEqual(await Promise.all(during), [2, 2, 2]);
  await gate.idle();
  assert.equal(gate.busy, false);
});

test('ScanGate: a failed scan fails its own callers only; the next request scans again', async () => {
  const m = await gateWithRunningScan();
  const gate = m.gate;
  m.runs[0]!.fail(new Error('disk on fire'));
  await assert.rejects(m.first, /disk on fire/);
  await gate.idle();
  const started = m.nextStart();
  const b = gate.request();
  await started;
  m.runs[1]!.finish(7);
  assert.equal(await b, 7);
});

test('ScanGate: a cancelled caller stops waiting (CANCELLED); a follow-up nobody waits for never starts', async () => {
  const m = await gateWithRunningScan();
  const gate = m.gate;
  const c1 = new AbortController();
  const c2 = new AbortController();
  const q1 = gate.request({ signal: c1.signal });
  const q2 = gate.request({ signal: c2.signal });
  c1.abort();
  await assert.rejects(q1, isCancelled);
  c2.abort();
  await assert.rejects(q2, isCancelled);
  m.runs[0]!.finish(1);
  assert.equal(await m.first, 1);
  await gate.idle();
  assert.equal(m.runs.length, 1, 'the abandoned follow-up did not run');
  const pre = new AbortController();
  pre.abort();
  await assert.rejects(gate.request({ signal: pre.signal }), isCancelled);
  assert.equal(m.runs.length, 1);
});

test('ScanGate: close() cancels the queued scan, lets the running one finish and refuses new requests', async () => {
  const m = await gateWithRunningScan();
  const gate = m.gate;
  const queued = gate.request();
  let closed = false;
  const closing = gate.close().then(() => (closed = true));
  await assert.rejects(queued, isCancelled);
  assert.equal(closed, false, 'close waits for the running scan');
  m.runs[0]!.finish(1);
  assert.equal(await m.first, 1, 'the running scan finished');
  await closing;
  await assert.rejects(gate.request(), isCancelled);
  assert.equal(m.runs.length, 1);
});

test('ProjectHost: concurrent callers share scans, and a note written while a scan runs is in the next answer', async () => {
  const v = tempVault({ 'a.md': '# Alpha\n\nalpha body\n' });
  const events: ScanEvent[] = [];
  let onStart: (() => void) | undefined;
  const host = new ProjectHost({
    vault: v.root,
    cwd: v.root,
    env: {},
    log: () => {},
    onScan: (e) => {
      events.push(e);
      if (e.kind === 'started') onStart?.();
    },
  });
  try {
    const burst = await Promise.all(Array.from({ length: 8 }, () => host.fresh()));
    assert.ok(burst.every((p) => p === burst[0]), 'one project for the host');
    const scansForBurst = events.filter((e) => e.kind === 'started').length;
    assert.ok(scansForBurst <= 2, `${scansForBurst} scans for 8 concurrent callers`);

    const scanStarted = new Promise<void>((resolve) => (onStart = resolve));
    const inFlight = host.fresh({ reason: 'before-the-edit' });
    await scanStarted;
    writeFileSync(join(v.notes, 'b.md'), '# Beta\n\nbeta written during a scan\n');
    const after = await host.fresh({ reason: 'after-the-edit' });
    await inFlight;
    const paths = after.index.all('SELECT path FROM documents ORDER BY path').map((r) => String(r.path));
    assert.deepEqual(paths, ['a.md', 'b.md']);
  } finally {
    await host.close();
    v.cleanup();
  }
});

test('ProjectHost: recall answers hybrid from BM25 until a model loads, and says so once; bm25 never starts the model', async () => {
  const v = tempVault({ 'cache.md': '# Caching\n\nWe cache payment tokens for five minutes.\n' });
  const host = new ProjectHost({ vault: v.root, cwd: v.root, env: { K0MARU_MODEL: join(v.root, 'no-such-model') }, log: () => {} });
  try {
    const hybrid = await host.recall('payment tokens', { mode: 'hybrid', budgetMs: 100 });
    assert.equal(hybrid.mode, 'hybrid');
    assert.equal(hybrid.effectiveMode, 'bm25');
    assert.equal(hybrid.hits[0]?.path, 'cache.md');
    assert.equal(hybrid.warnings.length, 1, hybrid.warnings.join(' | '));
    assert.match(hybrid.warnings[0]!, /BM25 only/);
    assert.match(hybrid.warnings[0]!, /no-such-model/, 'the host says which model and why, not a generic line');
    const lexical = await host.recall('payment tokens', { mode: 'bm25' });
    assert.equal(lexical.effectiveMode, 'bm25');
    assert.deepEqual(lexical.warnings, []);
  } finally {
    await host.close();
    v.cleanup();
  }
});

test('recallWithVectors: a failing vector source is a warning, never a failed recall; cancellation is CANCELLED', async () => {
  const v = tempVault({ 'n.md': '# Note\n\nsome words here\n' });
  const host = new ProjectHost({ vault: v.root, cwd: v.root, env: {}, log: () => {} });
  try {
    const project = await host.fresh();
    const r = await recallWithVectors(project, 'words', { mode: 'hybrid' }, async () => {
      throw new Error('worker exploded');
    });
    assert.equal(r.effectiveMode, 'bm25');
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0]!, /worker exploded.*BM25 only/);
    const c = new AbortController();
    c.abort();
    await assert.rejects(host.recall('words', { signal: c.signal }), isCancelled);
    await assert.rejects(recallWithVectors(project, 'words', { signal: c.signal }, async () => ({})), isCancelled);
  } finally {
    await host.close();
    v.cleanup();
  }
});

test('ProjectHost: close() waits for the running scan, then refuses work with CANCELLED', async () => {
  const v = tempVault({ 'a.md': '# A\n' });
  let onStart: (() => void) | undefined;
  const host = new ProjectHost({ vault: v.root, cwd: v.root, env: {}, log: () => {}, onScan: (e) => e.kind === 'started' && onStart?.() });
  await host.fresh();
  for (let i = 0; i < 200; i++) v.write(`n${i}.md`, `# N${i}\n\nbody ${i}\n`);
  const started = new Promise<void>((resolve) => (onStart = resolve));
  const scanning = host.fresh();
  await started;
  await host.close();
  // The scan that was running finished against an open index (closing it mid-scan would have failed the scan).
  const project = await scanning;
  assert.ok(project);
  await assert.rejects(host.fresh(), isCancelled);
  await assert.rejects(host.vectors(10), isCancelled);
  v.cleanup();
});

test('ProjectHost: a vault created after the host started is found on the next call', async () => {
  const v = tempVault();
  const cwd = join(v.root, 'elsewhere');
  mkdirSync(cwd);
  const host = new ProjectHost({ cwd, env: {}, log: () => {}, vault: join(v.root, 'later') });
  try {
    await assert.rejects(host.fresh(), (e: { code?: string }) => e.code === 'VAULT_NOT_FOUND');
    mkdirSync(join(v.root, 'later', '.k0maru', 'wiki'), { recursive: true });
    writeFileSync(join(v.root, 'later', '.k0maru', 'wiki', 'x.md'), '# X\n');
    const p = await host.fresh();
    assert.equal(p.index.all('SELECT COUNT(*) AS n FROM documents')[0]!.n, 1);
  } finally {
    await host.close();
    v.cleanup();
  }
});
