// The index and the embedding budget under attack, in real time (the tests assert structure; this measures).
//   npx tsx bench/indexRobustness.ts [--notes 5000] [--budget 1500] [--runs 3]   → bench/results/indexRobustness.json
// 1. what a quick_check costs on a 5,000-note index vs the header check that runs on every open;
// 2. CLI `loadout` alone and while another process holds the lock 300 ms of every 315 ms;
// 3. one-shot hybrid preparation (model load + embedding) against its budget on a vault with no vectors yet.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Database } from 'node-sqlite3-wasm';
import { generateVault } from './lib/vaultGen';
import { median, round } from './lib/stats';
import { openProject } from '../src/core/project';
import { headerLooksSound } from '../src/core/index/indexFiles';
import { openVectorChannel } from '../src/core/embed/channel';

const { values } = parseArgs({ options: { notes: { type: 'string' }, budget: { type: 'string' }, runs: { type: 'string' } } });
const NOTES = Number(values.notes ?? 5000);
const BUDGET = Number(values.budget ?? 1500);
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

    // 3. Hybrid preparation against its budget (fresh copy each run: no vectors yet).
    const hybrid: Record<string, number>[] = [];
    for (let i = 0; i < RUNS; i++) {
      const copy = mkdtempSync(join(tmpdir(), 'k0-bench-hyb-'));
      cpSync(join(root, '.k0maru'), join(copy, '.k0maru'), { recursive: true });
      const q = openProject({ vault: copy });
      const t = performance.now();
      const { channel, warning } = await openVectorChannel(q.index, { budgetMs: BUDGET, env: {} });
      const elapsed = performance.now() - t;
      if (!channel) throw new Error(`no vector channel: ${warning}`);
      const r = channel.lastCatchUp!;
      // The same call on a warm channel (model loaded): the part of the latency the budget governs.
      const t2 = performance.now();
      await channel.catchUp(BUDGET);
      const warm = performance.now() - t2;
      const w = channel.lastCatchUp!;
      hybrid.push({
        elapsedMs: ms(elapsed),
        embedded: r.embedded,
        batches: r.batches,
        batchesAfterDeadline: r.batchesAfterDeadline,
        overrunMs: ms(r.overrunMs),
        warmElapsedMs: ms(warm),
        warmEmbedded: w.embedded,
        warmBatches: w.batches,
        warmBatchesAfterDeadline: w.batchesAfterDeadline,
        warmOverrunMs: ms(w.overrunMs),
        msPerPassage: ms(w.msPerPassage),
      });
      await channel.dispose();
      q.close();
      rmSync(copy, { recursive: true, force: true });
    }

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
      hybridBudget: { budgetMs: BUDGET, runs: hybrid, maxElapsedMs: Math.max(...hybrid.map((h) => h.elapsedMs)), maxWarmElapsedMs: Math.max(...hybrid.map((h) => h.warmElapsedMs)) },
    };
    console.log(JSON.stringify(results, null, 2));
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'indexRobustness.json'), JSON.stringify(results, null, 2) + '\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
