// The index and the embedding budget under attack, in real time (the tests assert structure; this measures).
//   npx tsx bench/indexRobustness.ts [--notes 5000] [--hybrid-notes 200] [--budget 3000] [--runs 3]
//   → bench/results/indexRobustness.json
// 1. what a quick_check costs on a 5,000-note index vs the header check that runs on every open;
// 2. CLI `loadout` alone and while another process holds the lock 300 ms of every 315 ms;
// 3. the embedding budgets as the product has them now (docs/embeddings.md "who fills"):
//    a. one-shot channel (openVectorChannel, the CLI's) on an index with no vector: answers without a worker;
//    b. the same on an index filled by embedEverything (`scan --embed`'s fill): its budget bounds only the wait
//       for the model load; past it BM25 answers and the worker is stopped (overrun = time past the budget);
//    c. a budgeted catch-up (channel.catchUp, what a long-lived host's prepare runs) on a loaded model and an
//       index with nothing embedded: batches are sized so none starts after the deadline.
//    3 uses its own smaller vault (--hybrid-notes): filling every passage of 5,000 notes takes ~10 min here.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Database } from 'node-sqlite3-wasm';
import { generateVault } from './lib/vaultGen';
import { median, round } from './lib/stats';
import { openProject } from '../src/core/project';
import { headerLooksSound } from '../src/core/index/indexFiles';
import { createVectorChannel, openVectorChannel } from '../src/core/embed/channel';
import { embedEverything } from '../src/core/embed/fillAll';
import { ModelLoader } from '../src/core/embed/modelLoader';
import { nativeBinaryDir, requestedRuntime } from '../src/core/embed/runtime';

const { values } = parseArgs({ options: { notes: { type: 'string' }, 'hybrid-notes': { type: 'string' }, budget: { type: 'string' }, runs: { type: 'string' } } });
const NOTES = Number(values.notes ?? 5000);
const HYBRID_NOTES = Number(values['hybrid-notes'] ?? 200);
// The CLI's one-shot default (src/cli/commands/recall.ts DEFAULT_RECALL_BUDGET_MS); MCP calls use 1500.
const BUDGET = Number(values.budget ?? 3000);
const RUNS = Number(values.runs ?? 3);
const REPO = join(__dirname, '..');
const CLI = join(REPO, 'dist', 'cli.mjs');
const HOLDER = join(REPO, 'test', 'helpers', 'indexLockHolder.cjs');

const ms = (x: number) => round(x, 1);

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('run `node esbuild.mjs` first (dist/cli.mjs)');
  const root = mkdtempSync(join(tmpdir(), 'k0-bench-robust-'));
  try {
    generateVault(join(root, '.k0maru', 'wiki'), NOTES);
    const p = openProject({ vault: root });
    await p.scan();
    p.close();
    const indexPath = join(root, '.k0maru', 'index.db');

    // 1. Integrity checks.
    const header: number[] = [];
    const quick: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      headerLooksSound(indexPath);
      header.push(performance.now() - t);
      const db = new Database(indexPath);
      t = performance.now();
      db.all('PRAGMA quick_check(5)');
      quick.push(performance.now() - t);
      db.close();
    }

    // 2. CLI under contention.
    const loadout = () => {
      const t = performance.now();
      const r = spawnSync(process.execPath, [CLI, 'loadout', '--vault', root], { encoding: 'utf8' });
      return { ms: performance.now() - t, ok: r.status === 0, err: r.stderr };
    };
    const alone = Array.from({ length: RUNS }, loadout);
    const holder = spawn(process.execPath, [HOLDER, indexPath, '300', '15'], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const contended = Array.from({ length: RUNS * 2 }, loadout);
    const cycles = await new Promise<number>((resolve) => {
      let out = '';
      holder.stdout.on('data', (d) => (out += d));
      holder.on('close', () => resolve(Number(/cycles (\d+)/.exec(out)?.[1] ?? -1)));
      holder.stdin.end();
    });

    const load0 = loadavg();
    const hybridBudget = await measureBudgets();
    const results = {
      date: new Date().toISOString(),
      notes: NOTES,
      integrity: { headerCheckMs: ms(median(header)), quickCheckMs: ms(median(quick)), runs: RUNS },
      contention: {
        holdMs: 300,
        gapMs: 15,
        holderCycles: cycles,
        loadoutAloneMs: ms(median(alone.map((x) => x.ms))),
        loadoutContendedMedianMs: ms(median(contended.map((x) => x.ms))),
        loadoutContendedMaxMs: ms(Math.max(...contended.map((x) => x.ms))),
        failures: contended.filter((x) => !x.ok).map((x) => x.err.trim()),
      },
      hybridBudget,
      loadAverage: { beforeBudgets: load0.map((x) => round(x, 1)), end: loadavg().map((x) => round(x, 1)) },
    };
    console.log(JSON.stringify(results, null, 2));
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'indexRobustness.json'), JSON.stringify(results, null, 2) + '\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Section 3 on its own vault: the cold index first, then filled by embedEverything, then a fresh cold copy. */
async function measureBudgets() {
  const root = mkdtempSync(join(tmpdir(), 'k0-bench-budget-'));
  const copies: string[] = [];
  const copyOf = (from: string) => {
    const copy = mkdtempSync(join(tmpdir(), 'k0-bench-hyb-'));
    copies.push(copy);
    cpSync(join(from, '.k0maru'), join(copy, '.k0maru'), { recursive: true });
    return copy;
  };
  try {
    generateVault(join(root, '.k0maru', 'wiki'), HYBRID_NOTES);
    const p = openProject({ vault: root, env: {} });
    await p.scan();
    p.close();
    const cold = copyOf(root); // the index before the fill: 3a reads it, 3c copies it (3c writes vectors)

    // a. No vector of the model stored: the one-shot channel must not start the worker.
    const noVectors: { elapsedMs: number; channel: boolean }[] = [];
    let noVectorsWarning = '';
    for (let i = 0; i < RUNS; i++) {
      const q = openProject({ vault: cold, env: {} });
      const t = performance.now();
      const { channel, warning } = await openVectorChannel(q.index, { budgetMs: BUDGET, env: {} });
      noVectors.push({ elapsedMs: ms(performance.now() - t), channel: !!channel });
      noVectorsWarning = warning ?? '';
      await channel?.dispose();
      q.close();
    }

    // b. Filled as `k0maru scan --embed` fills it, then the one-shot channel against its budget.
    const f = openProject({ vault: root, env: {} });
    const fill = await embedEverything(f.index, { env: {} });
    f.close();
    const oneShot: Record<string, number | boolean | string>[] = [];
    for (let i = 0; i < RUNS; i++) {
      const q = openProject({ vault: root, env: {} });
      const t = performance.now();
      const { channel, warning } = await openVectorChannel(q.index, { budgetMs: BUDGET, env: {} });
      const elapsed = performance.now() - t;
      const row: Record<string, number | boolean | string> = { elapsedMs: ms(elapsed), overrunMs: ms(Math.max(0, elapsed - BUDGET)), modelLoadedInBudget: !!channel };
      if (channel) {
        // The query's own inference and the vector search: what a hybrid call costs once the model is there.
        const t2 = performance.now();
        const hits = await channel.search('replica lease renewal during failover', 50);
        row.queryMs = ms(performance.now() - t2);
        row.hits = hits.length;
        row.pending = channel.pending();
      } else row.warning = warning ?? '';
      oneShot.push(row);
      await channel?.dispose();
      q.close();
    }

    // c. A budgeted catch-up on a loaded model (a fresh copy of the unfilled index each run: everything pending).
    const catchUp: Record<string, number | string>[] = [];
    for (let i = 0; i < RUNS; i++) {
      const q = openProject({ vault: copyOf(cold), env: {} });
      const loader = new ModelLoader({ env: {}, threads: 2 });
      try {
        const t0 = performance.now();
        const model = await loader.load();
        const loadMs = performance.now() - t0;
        const channel = createVectorChannel({ index: q.index, embedder: model.worker, modelId: model.config.id, dimension: model.config.dimension });
        const t = performance.now();
        const embedded = await channel.catchUp(BUDGET);
        const elapsed = performance.now() - t;
        const r = channel.lastCatchUp!;
        catchUp.push({ loadMs: ms(loadMs), elapsedMs: ms(elapsed), embedded, batches: r.batches, batchesAfterDeadline: r.batchesAfterDeadline, overrunMs: ms(r.overrunMs), stoppedBy: r.stoppedBy, msPerPassage: ms(r.msPerPassage), pendingAfter: channel.pending() });
      } finally {
        await loader.dispose();
        q.close();
      }
    }

    return {
      budgetMs: BUDGET,
      notes: HYBRID_NOTES,
      runtime: { requested: requestedRuntime(process.env), nativeBinaryShipped: nativeBinaryDir() !== undefined },
      noVectors: { runs: noVectors, warning: noVectorsWarning, maxElapsedMs: Math.max(...noVectors.map((r) => r.elapsedMs)) },
      fill: { passages: fill.passages, embedded: fill.embedded, loadMs: fill.loadMs, embedMs: fill.embedMs, passagesPerSecond: fill.passagesPerSecond },
      oneShot: { runs: oneShot, maxElapsedMs: Math.max(...oneShot.map((r) => r.elapsedMs as number)), loadedInBudget: oneShot.filter((r) => r.modelLoadedInBudget).length },
      catchUp: { runs: catchUp, maxElapsedMs: Math.max(...catchUp.map((r) => r.elapsedMs as number)), batchesAfterDeadline: catchUp.reduce((n, r) => n + (r.batchesAfterDeadline as number), 0) },
    };
  } finally {
    for (const c of copies) rmSync(c, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
