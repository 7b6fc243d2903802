// Token-economy benchmark (`npx tsx bench/economy.ts`, writes bench/results/economy.json).
//  1. Offload time per 10,000 lines: a 10,000-line log made of the real captured build / test logs, median of runs.
//  2. Peak RSS while offloading a generated 100 MB log from a file stream, in a child process (so the number is
//     the offload's, not this script's), against the same child doing nothing. The log is generated in a temp
//     dir and deleted afterwards — never committed.
//  3. GC time on the 200-turn trajectory fixture, median of runs, with its TRR.
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { offloadLog } from '../src/core/offload';
import { gcSession } from '../src/core/gc';
import { median, round, timeAsync } from './lib/stats';

const HEAP_CAP_MB = 64;
const LOGS = join(__dirname, '..', 'test', 'fixtures', 'logs');
const TRAJ = join(__dirname, '..', 'test', 'fixtures', 'trajectories', 'session-200.json');

function project() {
  const root = mkdtempSync(join(tmpdir(), 'k0-bench-econ-'));
  return { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
}

/** Realistic noise: the lines of the real logs, cycled, with one real error block in the middle. */
function noiseLines(): string[] {
  const c = readFileSync(join(LOGS, 'long-c-build-buried-error.log'), 'utf8').split('\n').filter((l) => l.startsWith('cc ') || l.includes('warning'));
  const py = readFileSync(join(LOGS, 'long-pytest-one-failure.log'), 'utf8').split('\n').filter((l) => l.includes(' PASSED '));
  return [...c, ...py];
}
const ERROR_BLOCK = readFileSync(join(LOGS, 'rust-e0382-use-after-move.log'), 'utf8').split('\n');

function makeLog(lines: number): string {
  const noise = noiseLines();
  const out: string[] = [];
  for (let i = 0; out.length < lines; i++) {
    if (out.length === Math.floor(lines / 2)) out.push(...ERROR_BLOCK);
    out.push(noise[i % noise.length]);
  }
  return out.slice(0, lines).join('\n') + '\n';
}

async function childOffload(file: string): Promise<void> {
  const p = project();
  const t = performance.now();
  const r = await offloadLog(p, { stream: createReadStream(file, { highWaterMark: 1 << 20 }), threshold: 50, taskName: 'bench' });
  const ms = performance.now() - t;
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    JSON.stringify({ ms, maxRssMb, lines: r.lines, bytes: r.bytes, reduction: r.reduction, primary: r.analysis.primary?.code, root: r.analysis.primary?.location }) + '\n',
  );
  rmSync(p.projectRoot, { recursive: true, force: true });
}

/** `heapMb` caps V8's old space: an engine that held the log (or its lines) in memory would die under it. */
function runChild(args: string[], heapMb?: number): Record<string, unknown> {
  const flags = heapMb ? [`--max-old-space-size=${heapMb}`] : [];
  const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', __filename, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

function generate100MB(dir: string): string {
  const file = join(dir, 'huge.log');
  const fd = openSync(file, 'w');
  const noise = noiseLines();
  const target = 100 * 1024 * 1024;
  let written = 0;
  let i = 0;
  let errorPlaced = false;
  while (written < target) {
    const batch: string[] = [];
    for (let k = 0; k < 5000; k++, i++) batch.push(noise[i % noise.length]);
    if (!errorPlaced && written > target / 2) {
      batch.push(...ERROR_BLOCK);
      errorPlaced = true;
    }
    const buf = Buffer.from(batch.join('\n') + '\n');
    writeSync(fd, buf);
    written += buf.length;
  }
  closeSync(fd);
  return file;
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child') return childOffload(process.argv[3]);

  // 1. Offload per 10,000 lines.
  const log10k = makeLog(10_000);
  const p = project();
  const times: number[] = [];
  let last: Awaited<ReturnType<typeof offloadLog>> | undefined;
  for (let i = 0; i < 7; i++) times.push(await timeAsync(async () => (last = await offloadLog(p, { text: log10k, threshold: 50, taskName: 'bench' }))));
  rmSync(p.projectRoot, { recursive: true, force: true });
  const offload10k = {
    lines: last!.lines,
    bytes: last!.bytes,
    tokensBefore: last!.tokensBefore,
    tokensAfter: last!.tokensAfter,
    reductionPct: round(last!.reduction * 100, 2),
    primary: last!.analysis.primary?.code,
    root: last!.analysis.primary?.location,
    runs: times.length,
    medianMs: round(median(times), 1),
    minMs: round(Math.min(...times), 1),
  };
  console.log('offload 10k lines:', offload10k);

  // 2. Peak RSS on a 100 MB log (child processes).
  const dir = mkdtempSync(join(tmpdir(), 'k0-bench-100mb-'));
  let big: Record<string, unknown>;
  try {
    const file = generate100MB(dir);
    const size = statSync(file).size;
    // Baseline: the same child offloading a 10,000-line log, so tokenizer tables and WASM are already loaded.
    const small = join(dir, 'small.log');
    writeFileSync(small, makeLog(10_000));
    const baseline = runChild(['--child', small], HEAP_CAP_MB);
    const run = runChild(['--child', file], HEAP_CAP_MB);
    big = {
      bytes: size,
      lines: run.lines,
      seconds: round((run.ms as number) / 1000, 2),
      mbPerSecond: round(size / 1024 / 1024 / ((run.ms as number) / 1000), 1),
      heapCapMb: HEAP_CAP_MB,
      peakRssMb: round(run.maxRssMb as number, 1),
      baselineRssMb: round(baseline.maxRssMb as number, 1),
      rssOverBaselineMb: round((run.maxRssMb as number) - (baseline.maxRssMb as number), 1),
      reductionPct: round((run.reduction as number) * 100, 4),
      primary: run.primary,
      root: run.root,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('offload 100 MB:', big);

  // 3. GC on the 200-turn trajectory.
  const traj = readFileSync(TRAJ, 'utf8');
  const gcTimes: number[] = [];
  let gcLast: Awaited<ReturnType<typeof gcSession>> | undefined;
  for (let i = 0; i < 5; i++) {
    const q = project();
    gcTimes.push(await timeAsync(async () => (gcLast = await gcSession(q, { trajectory_json: traj }))));
    rmSync(q.projectRoot, { recursive: true, force: true });
  }
  const gc = {
    turns: gcLast!.report.turns_before,
    tokensBefore: gcLast!.report.tokens_before,
    tokensAfter: gcLast!.report.tokens_after,
    trrPct: round(gcLast!.report.trr * 100, 2),
    nodes: gcLast!.report.nodes_created.length,
    runs: gcTimes.length,
    medianMs: round(median(gcTimes), 1),
    minMs: round(Math.min(...gcTimes), 1),
  };
  console.log('gc 200 turns:', gc);

  const out = {
    when: new Date().toISOString(),
    machine: { node: process.version, cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
    targets: { offloadReductionPct: 97, gcTrrPct: 85 },
    offload10kLines: offload10k,
    offload100MB: big,
    gc200Turns: gc,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'economy.json'), JSON.stringify(out, null, 2) + '\n');
  console.log('wrote bench/results/economy.json');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
