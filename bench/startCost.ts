// Whole-process cost of one-shot commands against a bare `node -e 0` of the SAME runtime in the same run
// (`npx tsx bench/startCost.ts`, needs `node esbuild.mjs` first; writes bench/results/startCost.json). Issue 17:
// the fixed start cost, on both SQLite engines — this Node 20 (node-sqlite3-wasm) and, when one is found, a Node 22
// (node:sqlite; bench/lib/runtimes.ts). Both runtimes work on the same vault and index file, as a Node 22 CLI and
// a Node 20 editor would.
//
// Series per runtime, interleaved so a change in machine load hits all alike (medians; CPU = user + sys from
// bash's `time`; wall is reported too, but on a shared loaded machine it mostly measures the neighbours):
//  - node:      `node -e 0`, the floor;
//  - version:   `k0maru --version`, the CLI's own floor (no index opened);
//  - scan500:   `k0maru scan`, clean (index current), 500 notes;
//  - scan5k:    the same on 5,000 notes;
//  - recall5k:  `k0maru recall <query> --mode bm25` on 5,000 notes;
//  - scanTierUp (WASM only): scan500 with K0MARU_WASM_TIERUP=1 (V8's default WASM tiering; wasmTier.ts).
// Cold index: in-process, per runtime (bench/lib/coldIndex.ts), first and steady docs/s at 5,000 notes, with the
// parse worker and without (K0MARU_PARSE_WORKER=0); and whole-process `k0maru scan` onto a deleted index, both ways.
// Not measured: `recall --mode hybrid` whole-process — it needs every passage embedded first (~18,600 passages of
// the 5,000-note vault at ~30/s with the WASM embedder: ~10 min per run), which this bench does not spend.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateVault } from './lib/vaultGen';
import { median, round } from './lib/stats';
import { hasBash, measureProcess, privateCli, skippedWithoutCli, summary } from './lib/processCost';
import { runtimes, type Runtime } from './lib/runtimes';

const RUNS = Number(process.env.START_COST_RUNS ?? 11);
const COLD_REPS = Number(process.env.START_COST_COLD_REPS ?? 4);
const builtCli = join(__dirname, '..', 'dist', 'cli.mjs');
const out = join(__dirname, 'results', 'startCost.json');

type Step = { key: string; cwd: string; args: string[]; env?: NodeJS.ProcessEnv };

/** In-process cold index (bench/lib/coldIndex.ts), with the parse worker (default) or without (K0MARU_PARSE_WORKER=0). */
function coldIndex(rt: Runtime, root: string, worker: boolean): unknown {
  const env = { ...process.env, K0MARU_PARSE_WORKER: worker ? '1' : '0' };
  const r = spawnSync(rt.node, ['--import', 'tsx', join(__dirname, 'lib', 'coldIndex.ts'), root, String(COLD_REPS)], { encoding: 'utf8', cwd: join(__dirname, '..'), env });
  if (r.status !== 0) throw new Error(`cold index on ${rt.engine} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** Whole-process `k0maru scan` onto a deleted index, interleaved with and without the parse worker: what a new user waits. */
function coldCli(rt: Runtime, root: string, cli: string, errFile: string, docs: number) {
  const wall: Record<'worker' | 'inThread', number[]> = { worker: [], inThread: [] };
  const cpu: Record<'worker' | 'inThread', number[]> = { worker: [], inThread: [] };
  for (let i = 0; i < COLD_REPS; i++) {
    for (const mode of ['worker', 'inThread'] as const) {
      for (const f of ['index.db', 'index.db-journal']) rmSync(join(root, '.k0maru', f), { force: true });
      const m = measureProcess(root, [cli, 'scan'], { errFile, node: rt.node, env: { K0MARU_PARSE_WORKER: mode === 'worker' ? '1' : '0' } });
      wall[mode].push(m.wall);
      cpu[mode].push(m.cpu);
    }
  }
  const rate = (ms: number[]) => Math.round(docs / (median(ms) / 1000));
  return {
    docsPerSecWall: { worker: rate(wall.worker), inThread: rate(wall.inThread) },
    docsPerSecCpu: { worker: rate(cpu.worker), inThread: rate(cpu.inThread) },
    wallMs: { worker: summary(wall.worker), inThread: summary(wall.inThread) },
  };
}

function main() {
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  if (skippedWithoutCli(builtCli, out)) return;
  const cli = privateCli(builtCli);
  const { list, missing } = runtimes();
  const scratch = mkdtempSync(join(tmpdir(), 'k0startcost-'));
  const errFile = join(scratch, 'stderr.txt');
  const small = join(scratch, 'v500');
  const big = join(scratch, 'v5000');
  try {
    generateVault(join(small, '.k0maru', 'wiki'), 500);
    const gen = generateVault(join(big, '.k0maru', 'wiki'), 5000);
    const query = gen.queries[0];
    const loadBefore = loadavg().map((x) => round(x, 2));
    // Cold indexes first (each deletes the index it builds on), then one scan leaves both vaults current.
    const cold = Object.fromEntries(list.map((rt) => [rt.engine, coldIndex(rt, big, true)]));
    const coldInThread = Object.fromEntries(list.map((rt) => [rt.engine, coldIndex(rt, big, false)]));
    const coldWhole = Object.fromEntries(list.map((rt) => [rt.engine, coldCli(rt, big, cli, errFile, 5000)]));
    for (const root of [small, big]) measureProcess(root, [cli, 'scan'], { errFile });
    const steps = (rt: Runtime): Step[] => [
      { key: 'node', cwd: small, args: ['-e', '0'] },
      { key: 'version', cwd: small, args: [cli, '--version'] },
      { key: 'scan500', cwd: small, args: [cli, 'scan'] },
      { key: 'scan5k', cwd: big, args: [cli, 'scan'] },
      { key: 'recall5k', cwd: big, args: [cli, 'recall', query, '--mode', 'bm25'] },
      ...(rt.engine === 'wasm' ? [{ key: 'scanTierUp', cwd: small, args: [cli, 'scan'], env: { K0MARU_WASM_TIERUP: '1' } }] : []),
    ];
    const series: Record<string, Record<string, { cpu: number[]; wall: number[] }>> = {};
    for (const rt of list) series[rt.engine] = Object.fromEntries(steps(rt).map((s) => [s.key, { cpu: [], wall: [] }]));
    for (let i = 0; i < RUNS; i++) {
      for (const rt of list) {
        for (const s of steps(rt)) {
          const m = measureProcess(s.cwd, s.args, { errFile, env: s.env, node: rt.node });
          series[rt.engine][s.key].cpu.push(m.cpu);
          series[rt.engine][s.key].wall.push(m.wall);
        }
      }
    }
    const engines: Record<string, unknown> = {};
    for (const rt of list) {
      const ser = series[rt.engine];
      const ratio = (k: string, of: 'cpu' | 'wall') => round(median(ser[k][of]) / median(ser.node[of]), 2);
      const ratios = Object.fromEntries(Object.keys(ser).filter((k) => k !== 'node').map((k) => [k, { cpu: ratio(k, 'cpu'), wall: ratio(k, 'wall') }]));
      const c = cold[rt.engine] as { cpu: { steadyDocsPerSec: number }; wall: { steadyDocsPerSec: number } };
      engines[rt.engine] = {
        node: rt.node === process.execPath ? process.version : spawnSync(rt.node, ['--version'], { encoding: 'utf8' }).stdout.trim(),
        sqlite: rt.engine === 'wasm' ? 'node-sqlite3-wasm' : 'node:sqlite',
        cpuMs: Object.fromEntries(Object.entries(ser).map(([k, v]) => [k, summary(v.cpu)])),
        wallMs: Object.fromEntries(Object.entries(ser).map(([k, v]) => [k, summary(v.wall)])),
        ratioToNode: ratios,
        coldIndex5k: cold[rt.engine],
        coldIndex5kWithoutParseWorker: coldInThread[rt.engine],
        coldIndex5kWholeProcess: coldWhole[rt.engine],
        goals: {
          cleanScanMaxRatio2: { scan500: ratios.scan500.cpu <= 2, scan5k: ratios.scan5k.cpu <= 2 },
          recallBm25At5kMaxRatio3: ratios.recall5k.cpu <= 3,
          coldIndexSteadyMin10k: { cpu: c.cpu.steadyDocsPerSec >= 10_000, wall: c.wall.steadyDocsPerSec >= 10_000, appliesTo: 'native' },
        },
      };
    }
    const result = {
      when: new Date().toISOString(),
      command: 'node esbuild.mjs && npx tsx bench/startCost.ts',
      // The build measured: dist/ holds whatever the working tree had when it was built, this names its base.
      commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', cwd: join(__dirname, '..') }).stdout.trim() || null,
      machine: { cpus: cpus().length, loadavgBefore: loadBefore, loadavgAfter: loadavg().map((x) => round(x, 2)) },
      runs: RUNS,
      recallQuery: query,
      cpuMeasure: hasBash ? 'bash time: user+sys of the process; ratios are of CPU medians against node -e 0 of the same runtime' : 'unavailable (no bash): wall only',
      nativeMissing: missing ?? null,
      hybridWholeProcess: 'not measured: needs all ~18,600 passages of the 5,000-note vault embedded first (~10 min)',
      engines,
    };
    writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    for (const [k, v] of Object.entries(engines)) {
      const e = v as { cpuMs: Record<string, { median: number }>; ratioToNode: unknown; coldIndex5k: unknown };
      console.log(k, 'CPU medians ms', Object.fromEntries(Object.entries(e.cpuMs).map(([s, m]) => [s, m.median])), 'ratios', JSON.stringify(e.ratioToNode));
      console.log(k, 'cold index 5k', JSON.stringify(e.coldIndex5k));
      const w = v as { coldIndex5kWithoutParseWorker: unknown; coldIndex5kWholeProcess: unknown };
      console.log(k, 'cold index 5k without the parse worker', JSON.stringify(w.coldIndex5kWithoutParseWorker));
      console.log(k, 'cold index 5k, whole k0maru scan process', JSON.stringify(w.coldIndex5kWholeProcess));
    }
    if (missing) console.log(missing);
    console.log('load:', result.machine.loadavgAfter);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main();
