// Whole-process cost of a clean `k0maru scan` (500 notes, index current) against a bare `node -e 0` in the same run
// (`npx tsx bench/startCost.ts`, needs `node esbuild.mjs` first; writes bench/results/startCost.json). Issue 17
// item 1: the fixed start cost of one-shot processes.
//
// Series, interleaved so a change in machine load hits all alike (medians; CPU = user + sys from bash's `time`):
//  - node:        `node -e 0`, the floor;
//  - version:     `k0maru --version`, the CLI's own floor (no index opened);
//  - scan:        `k0maru scan` as shipped (SQLite's WASM without TurboFan tier-up: src/core/index/wasmTier.ts);
//  - scanTierUp:  the same with K0MARU_WASM_TIERUP=1 (V8's default tiering) — isolates the tier-up step;
//  - scanBase:    only with START_COST_BASE_CLI=<an older dist/cli.mjs>: that build's scan on the same vault (e.g. the
//                 build before issue 17, whose schema check queried sqlite_master and meta on every open).
//                 scanBase vs scanTierUp isolates the schema step (both tier up).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateVault } from './lib/vaultGen';
import { median, round } from './lib/stats';
import { hasBash, measureProcess, skippedWithoutCli, summary } from './lib/processCost';

const RUNS = Number(process.env.START_COST_RUNS ?? 21);
const NOTES = Number(process.env.START_COST_NOTES ?? 500);
const cli = join(__dirname, '..', 'dist', 'cli.mjs');
const baseCli = process.env.START_COST_BASE_CLI;
const out = join(__dirname, 'results', 'startCost.json');
/** One whole process (CPU and wall ms); a failed run ends the bench. */
const measure = (cwd: string, args: string[], env: NodeJS.ProcessEnv, errFile: string) => measureProcess(cwd, args, { env, errFile });


function main() {
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  if (skippedWithoutCli(cli, out)) return;
  const root = mkdtempSync(join(tmpdir(), 'k0startcost-'));
  const errFile = join(root, 'stderr.txt');
  try {
    generateVault(join(root, '.k0maru', 'wiki'), NOTES);
    measure(root, [cli, 'scan'], {}, errFile); // the cold index; every run below is a clean scan of a current index
    if (baseCli) measure(root, [baseCli, 'scan'], {}, errFile); // an older schema stamp is upgraded here, once
    const loadBefore = loadavg().map((x) => round(x, 2));
    const plan: [string, string[], NodeJS.ProcessEnv][] = [
      ['node', ['-e', '0'], {}],
      ['version', [cli, '--version'], {}],
      ['scan', [cli, 'scan'], {}],
      ['scanTierUp', [cli, 'scan'], { K0MARU_WASM_TIERUP: '1' }],
      ...(baseCli ? ([['scanBase', [baseCli, 'scan'], {}]] as [string, string[], NodeJS.ProcessEnv][]) : []),
    ];
    const series = Object.fromEntries(plan.map(([k]) => [k, { cpu: [] as number[], wall: [] as number[] }]));
    for (let i = 0; i < RUNS; i++) {
      for (const [k, args, env] of plan) {
        const m = measure(root, args, env, errFile);
        series[k].cpu.push(m.cpu);
        series[k].wall.push(m.wall);
      }
    }
    const cpu = Object.fromEntries(Object.entries(series).map(([k, v]) => [k, summary(v.cpu)]));
    const wall = Object.fromEntries(Object.entries(series).map(([k, v]) => [k, summary(v.wall)]));
    const ratio = (k: string, of: 'cpu' | 'wall') => round(median(series[k][of]) / median(series.node[of]), 2);
    const ratios = Object.fromEntries(plan.filter(([k]) => k !== 'node').map(([k]) => [k, { cpu: ratio(k, 'cpu'), wall: ratio(k, 'wall') }]));
    const result = {
      when: new Date().toISOString(),
      machine: { node: process.version, cpus: cpus().length, loadavgBefore: loadBefore, loadavgAfter: loadavg().map((x) => round(x, 2)) },
      notes: NOTES,
      runs: RUNS,
      baseCli: baseCli ?? null,
      cpuMeasure: hasBash ? 'bash time: user+sys of the process' : 'unavailable (no bash): wall only',
      cpuMs: cpu,
      wallMs: wall,
      ratioToNode: ratios,
      goals: { issue17: { scanMaxRatio: 2, metCpu: ratios.scan.cpu <= 2, metWall: ratios.scan.wall <= 2 } },
    };
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    console.log('clean scan vs node -e 0 (medians, ms): cpu', Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v.median])), 'wall', Object.fromEntries(Object.entries(wall).map(([k, v]) => [k, v.median])));
    console.log('ratios to node:', ratios, 'load:', result.machine.loadavgAfter);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main();
