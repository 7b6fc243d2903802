// SIGKILL during flush, supersession and scan: at every injected point (K0MARU_FAULT) in turn and at random
// moments, ×100 (full) / ×10 (short) each. After every kill the next run must recover within 15 s, leave every
// superseding pair whole or absent, no temp file, and an index that passes integrity_check.
// With a Node 22 at hand (lib.ts: MIXED) the engines alternate in pairs of runs: the killed process on node:sqlite
// and the run after it on node-sqlite3-wasm, then the other way round — a journal or `.lock` left by one engine is
// recovered by the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crashProject, DECIDED, expectedRules, FLUSH_POINTS, guardRuleIds, leftovers, pairState, supersedingFlush } from '../unit/flush/crashKit';
import { ENGINES, integrityCheck, MIXED, percentile, record, round, runCli, size, type Runtime } from './lib';

/** Run i's killed process and the run after it: both WASM without a Node 22; else alternating in pairs. */
function runtimes(i: number): { killed: Runtime; next: Runtime } {
  if (!MIXED) return { killed: 'wasm', next: 'wasm' };
  return Math.floor(i / 2) % 2 ? { killed: 'native', next: 'wasm' } : { killed: 'wasm', next: 'native' };
}
const engineCounts = () => ({ killedOnNative: 0, killedOnWasm: 0 });
function countEngine(c: ReturnType<typeof engineCounts>, rt: Runtime): void {
  if (rt === 'native') c.killedOnNative++;
  else c.killedOnWasm++;
}

const NEXT_RUN_MS = 15_000;
const RUNS = size(100, 10);

/** How long the runs after the kills took: the distribution, not only the worst. */
function nextRunFigures(ms: number[]): Record<string, number> {
  return { nextRunP50Ms: round(percentile(ms, 50)), nextRunP90Ms: round(percentile(ms, 90)), nextRunP99Ms: round(percentile(ms, 99)), maxNextRunMs: round(Math.max(0, ...ms)) };
}

// A deterministic "random" (the figures of two runs are comparable; a failure can be replayed).
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

test(`SIGKILL at injected and random points of a superseding flush, ×${RUNS} (alternating), ${ENGINES}: next run ≤ 15 s, pair whole or absent, no temp file`, async () => {
  const rand = rng(13);
  const stats = { injected: 0, random: 0, whole: 0, absent: 0, killedBeforeEnd: 0 };
  const slowNextRuns: string[] = [];
  const nextMs: number[] = [];
  const engines = engineCounts();
  for (let i = 0; i < RUNS; i++) {
    const injected = i % 2 === 0;
    const rt = runtimes(i);
    countEngine(engines, rt.killed);
    const p = crashProject();
    const point = FLUSH_POINTS[(i / 2) % FLUSH_POINTS.length];
    // Random kills: a delay spread over a flush's whole life (process start ~150-400 ms, the commit a few ms).
    const r = injected
      ? await runCli(p.root, supersedingFlush, { env: { K0MARU_FAULT: `flush:${point}` }, runtime: rt.killed })
      : await runCli(p.root, supersedingFlush, { killAfterMs: Math.floor(rand() * 700), runtime: rt.killed });
    if (injected) {
      stats.injected++;
      assert.equal(r.signal, 'SIGKILL', `reached ${point}`);
    } else {
      stats.random++;
      if (r.signal === 'SIGKILL') stats.killedBeforeEnd++;
      else assert.equal(r.code, 0, r.err);
    }
    const next = await runCli(p.root, ['scan'], { timeoutMs: 60_000, runtime: rt.next });
    nextMs.push(next.ms);
    assert.equal(next.code, 0, `${next.err}`);
    if (next.ms > NEXT_RUN_MS) slowNextRuns.push(`${injected ? point : 'random'}: ${Math.round(next.ms)} ms ${next.err.slice(0, 200)}`);
    const state = pairState(p);
    stats[state]++;
    if (injected) assert.equal(state, DECIDED.has(point) ? 'whole' : 'absent', point);
    assert.deepEqual(leftovers(p.root), [], injected ? point : 'random kill');
    if (i % 5 === 0) assert.deepEqual(guardRuleIds(p), expectedRules(state));
    assert.equal(integrityCheck(join(p.root, '.k0maru', 'index.db')), 'ok');
  }
  record('kill-flush', { engines: MIXED ? 'mixed' : 'wasm only', ...engines, ...stats, ...nextRunFigures(nextMs), nextRunsOver15s: slowNextRuns.length });
  assert.deepEqual(slowNextRuns, [], 'every next run within 15 s');
});

test(`SIGKILL at random moments of a scan, ×${RUNS}, ${ENGINES}: the next scan recovers the index (integrity ok) within 15 s`, async () => {
  const rand = rng(17);
  const p = crashProject();
  const many = join(p.notes, 'bulk');
  mkdirSync(many, { recursive: true });
  for (let i = 0; i < 400; i++) writeFileSync(join(many, `note-${i}.md`), `# Note ${i}\n\n${'word'.repeat(1 + (i % 7))} ${i} lorem ipsum dolor\n`.repeat(20));
  const stats = { runs: 0, killedMidScan: 0, warnings: 0 };
  const slowNextRuns: string[] = [];
  const nextMs: number[] = [];
  const engines = engineCounts();
  for (let i = 0; i < RUNS; i++) {
    const rt = runtimes(i);
    countEngine(engines, rt.killed);
    // Change some notes so every scan has work to do, then kill it somewhere in the middle.
    for (let k = 0; k < 40; k++) writeFileSync(join(many, `note-${Math.floor(rand() * 400)}.md`), `# Note changed ${i}-${k}\n\nedited text ${i} ${k}\n`);
    const killed = await runCli(p.root, ['scan'], { killAfterMs: 150 + Math.floor(rand() * 1200), runtime: rt.killed });
    stats.runs++;
    if (killed.signal === 'SIGKILL') stats.killedMidScan++;
    const next = await runCli(p.root, ['scan', '--json'], { timeoutMs: 60_000, runtime: rt.next });
    nextMs.push(next.ms);
    assert.equal(next.code, 0, next.err);
    if (/warn/i.test(next.err)) stats.warnings++;
    if (next.ms > NEXT_RUN_MS) slowNextRuns.push(`${Math.round(next.ms)} ms: ${next.err.slice(0, 200)}`);
    assert.equal(integrityCheck(join(p.root, '.k0maru', 'index.db')), 'ok');
    assert.deepEqual(leftovers(p.root), []);
  }
  record('kill-scan', { engines: MIXED ? 'mixed' : 'wasm only', ...engines, ...stats, ...nextRunFigures(nextMs), nextRunsOver15s: slowNextRuns.length, firstSlow: slowNextRuns[0] ?? null });
  assert.deepEqual(slowNextRuns, [], 'every next scan within 15 s');
});

test(`SIGKILL at injected points of the recovery a scan runs, ×${RUNS}, ${ENGINES}: the scan after it finishes the pair`, async () => {
  const points = ['recover:start', 'recover:op-0', 'recover:op-1', 'recover:op-2', 'recover:done'];
  const flushPoints = [...DECIDED].filter((pt) => !['cleanup', 'unlock'].includes(pt)); // a journal is left to recover
  const stats = { runs: 0, whole: 0 };
  const nextMs: number[] = [];
  const engines = engineCounts();
  for (let i = 0; i < RUNS; i++) {
    const rt = runtimes(i);
    countEngine(engines, rt.killed);
    const p = crashProject();
    assert.equal((await runCli(p.root, supersedingFlush, { env: { K0MARU_FAULT: `flush:${flushPoints[i % flushPoints.length]}` }, runtime: rt.next })).signal, 'SIGKILL');
    const point = points[i % points.length];
    const killed = await runCli(p.root, ['scan'], { env: { K0MARU_FAULT: point }, runtime: rt.killed });
    assert.equal(killed.signal, 'SIGKILL', `the scan's recovery reached ${point}`);
    const next = await runCli(p.root, ['scan'], { timeoutMs: 60_000, runtime: rt.next });
    stats.runs++;
    nextMs.push(next.ms);
    assert.equal(next.code, 0, next.err);
    assert.equal(pairState(p), 'whole', `${flushPoints[i % flushPoints.length]} then ${point}`);
    stats.whole++;
    assert.deepEqual(leftovers(p.root), []);
  }
  record('kill-recovery-in-scan', { engines: MIXED ? 'mixed' : 'wasm only', ...engines, ...stats, ...nextRunFigures(nextMs), nextRunsOver15s: nextMs.filter((ms) => ms > NEXT_RUN_MS).length });
  assert.deepEqual(nextMs.filter((ms) => ms > NEXT_RUN_MS).map(Math.round), [], 'every next scan within 15 s');
});
