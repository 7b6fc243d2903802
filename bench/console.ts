// Console benchmark (`npx tsx bench/console.ts`, writes bench/results/console.json). The console is interactive,
// so what matters is the time from a click to an answer and how it grows with the vault and the ledger:
//  1. Scoreboard: first sync of a ledger of N lines into the index, then the cost of one appended line, then a
//     read with nothing new — for N = 1,000 / 10,000 / 100,000.
//  2. Offload viewer: a 2,000-line window at the top and at the end of a 1,000,000-line raw log (streamed), the
//     end cold and again once the console has learnt the log's line checkpoints, and the middle then.
//  3. Search debugger through the dispatcher (validation + recall + figures): p50 / p95 of 30 queries after a
//     warm-up. BM25 on generated vaults of 500 and 5,000 notes; hybrid (bundled model) on 500 only — embedding
//     5,000 notes first would take ~8 minutes at 30 passages/s (bench/embed.ts measures the channel at 5,000).
import { appendFileSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dispatchClientMessage, type DispatchContext } from '../src/core/console/dispatch';
import { LineCheckpoints, readLog } from '../src/core/console/offloads';
import { createConsoleService } from '../src/core/console/service';
import { LEDGER_FILE, offloadLog } from '../src/core/offload';
import { openProject } from '../src/core/project';
import { ProjectHost } from '../src/core/host';
import { readScoreboard } from '../src/core/scoreboard/scoreboard';
import { ensureBundledModel } from '../test/unit/embed/helpers';
import { generateVault } from './lib/vaultGen';
import { median, percentile, round, timeAsync, timeIt } from './lib/stats';

function ledgerLine(i: number): string {
  return JSON.stringify({ kind: 'offload', ts: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), node_id: `node_${(i % 4096).toString(16).padStart(8, '0')}`, task: 'build', lines: 900, bytes: 60_000, tokens_before: 20_000 + (i % 997), tokens_after: 120, reduction: 0.994, source: i % 3 ? 'cli' : 'mcp', deduplicated: false });
}

function scoreboardBench(n: number) {
  const root = mkdtempSync(join(tmpdir(), 'k0-bench-board-'));
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  mkdirSync(join(root, '.k0maru', 'refs'), { recursive: true });
  writeFileSync(join(root, '.k0maru', 'refs', LEDGER_FILE), Array.from({ length: n }, (_, i) => ledgerLine(i)).join('\n') + '\n');
  const project = openProject({ vault: root });
  try {
    const firstMs = timeIt(() => readScoreboard(project));
    const appendMs: number[] = [];
    const idleMs: number[] = [];
    for (let k = 0; k < 15; k++) {
      appendFileSync(join(root, '.k0maru', 'refs', LEDGER_FILE), ledgerLine(n + k) + '\n');
      appendMs.push(timeIt(() => readScoreboard(project)));
      idleMs.push(timeIt(() => readScoreboard(project)));
    }
    return { ledgerLines: n, firstSyncMs: round(firstMs, 1), oneAppendedLineMedianMs: round(median(appendMs), 2), nothingNewMedianMs: round(median(idleMs), 2) };
  } finally {
    project.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function logWindowBench() {
  const root = mkdtempSync(join(tmpdir(), 'k0-bench-log-'));
  const paths = { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
  const file = join(root, 'big.log');
  const fd = openSync(file, 'w');
  const LINES = 1_000_000;
  for (let i = 0; i < LINES; i += 10_000) writeSync(fd, Array.from({ length: 10_000 }, (_, j) => `[${i + j}] cc -O2 -c src/module_${(i + j) % 977}.c -o build/module.o`).join('\n') + '\n');
  closeSync(fd);
  const { createReadStream, statSync } = await import('node:fs');
  const r = await offloadLog(paths, { stream: createReadStream(file), taskName: 'big' });
  const top = await timeAsync(() => readLog(paths, r.nodeId!, 1, 2000));
  // Cold: nothing learnt about this log yet. Warm: the console has paged through it once (line checkpoints).
  const checkpoints = new LineCheckpoints();
  const end = await timeAsync(() => readLog(paths, r.nodeId!, LINES - 1999, LINES, checkpoints));
  const endWarm = await timeAsync(() => readLog(paths, r.nodeId!, LINES - 1999, LINES, checkpoints));
  const middleWarm = await timeAsync(() => readLog(paths, r.nodeId!, LINES / 2, LINES / 2 + 1999, checkpoints));
  const out = { lines: LINES, mb: round(statSync(file).size / 1e6, 1), topWindowMs: round(top, 1), endWindowColdMs: round(end, 1), endWindowWarmMs: round(endWarm, 1), middleWindowWarmMs: round(middleWarm, 1) };
  rmSync(root, { recursive: true, force: true });
  return out;
}

async function searchBench(notes: number, model: string, hybrid: boolean) {
  const root = mkdtempSync(join(tmpdir(), 'k0-bench-search-'));
  const gen = generateVault(join(root, '.k0maru', 'wiki'), notes);
  const session = new ProjectHost({ vault: root, cwd: root, env: { K0MARU_MODEL: model }, log: () => {} });
  const ctx: DispatchContext = {
    service: createConsoleService({ project: () => session.fresh(), vectors: (ms) => session.vectors(ms) }),
    hello: { host: 'browser', version: 'bench', vaultName: 'bench', layout: 'page' },
    log: () => {},
  };
  try {
    await session.fresh();
    const run = async (mode: 'bm25' | 'hybrid', fusion: 'default' | 'rrf+boost') => {
      const times: number[] = [];
      let id = 0;
      for (const q of [...gen.queries.slice(0, 5), ...gen.queries.slice(0, 30)]) {
        const t = performance.now();
        const res = await dispatchClientMessage(ctx, { kind: 'request', id: id++, request: { method: 'search', params: { query: q, mode, fusion, limit: 10 } } });
        if (res.kind !== 'response' || !res.ok) throw new Error(JSON.stringify(res));
        times.push(performance.now() - t);
      }
      const warm = times.slice(5);
      return { p50Ms: round(median(warm), 1), p95Ms: round(percentile(warm, 95), 1) };
    };
    const bm25 = await run('bm25', 'default');
    if (!hybrid) return { notes, bm25 };
    // Embed the whole vault first: the bench measures answering, not the first-run catch-up.
    for (let left = Infinity; left > 0; ) left = (await session.vectors(60_000)).channel?.pending() ?? 0;
    return { notes, bm25, hybrid: await run('hybrid', 'default'), hybridRrfBoost: await run('hybrid', 'rrf+boost') };
  } finally {
    await session.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main() {
  const scoreboard = [1_000, 10_000, 100_000].map(scoreboardBench);
  console.log('scoreboard:', scoreboard);
  const logWindow = await logWindowBench();
  console.log('log window:', logWindow);
  const model = ensureBundledModel();
  const search = [];
  for (const n of [500, 5000]) {
    search.push(await searchBench(n, model, n <= 500));
    console.log('search:', search[search.length - 1]);
  }
  const out = {
    when: new Date().toISOString(),
    machine: { node: process.version, cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
    scoreboard,
    logWindow,
    search,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'console.json'), JSON.stringify(out, null, 2) + '\n');
  console.log('wrote bench/results/console.json');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
