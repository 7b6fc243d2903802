// Whole-call latency of a hybrid recall while the embedding model is cold (issue 13 item 11: a call is bounded by
// its budget plus the query itself). Against the built bundles (run `node esbuild.mjs` first):
//   - MCP: spawn dist/mcp.mjs, the first recall_memory (mode hybrid, budget 1.5 s) — the model is not loaded yet;
//     then hybrid calls until one answers with vectors (the load went on in the background);
//   - CLI: `k0maru recall --mode hybrid --json` from spawn to exit (a one-shot host must not wait for the load).
// Each repetition uses a fresh copy of a generated vault whose index was scanned but has no vectors (cold model,
// catch-up pending), and a second set whose vectors were all embedded before (cold model, warm index).
//
// `--dists a,b` runs the same vaults, interleaved, against several builds (e.g. one of the code before a change,
// built with `node esbuild.mjs` in a checkout of that commit), so a busy machine loads them alike.
//
//   npx tsx bench/coldRecall.ts [--notes 60] [--reps 5] [--dists dist,/tmp/old/dist] [--label L]
//     → bench/results/coldRecall-<label>.json
//
// `--scale` measures issue 14 items 1, 3 and 4 instead (bench/results/coldRecall-scale-<notes>.json), in one run:
//   - a `--notes` (default 5,000) vault whose every passage has a stored vector (made-up unit vectors: the search
//     and load costs are those of real ones; the query is embedded by the real model): whole-process
//     `k0maru recall --mode bm25` vs `--mode hybrid` (wall and max RSS, interleaved), and the MCP server's warm
//     hybrid call (p50/p95 of `--calls` calls) and RSS after them, against a bm25-only server;
//   - a `--fill-notes` (default 300) vault with no vectors: the latency of bm25 and hybrid tool calls made while
//     the server's background fill runs, against the same calls before the fill started.
//   npx tsx bench/coldRecall.ts --scale [--notes 5000] [--calls 20] [--reps 3] [--fill-notes 300]
//     [--dists before/dist,dist] [--one-shot-only] [--label L]
// With several `--dists` the one-shots run interleaved across them (the last one is "after": the MCP and fill
// parts use it); `--one-shot-only` stops after the one-shots.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateVault } from './lib/vaultGen';
import { median, percentile, round } from './lib/stats';

const REPO = join(__dirname, '..');
const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const NOTES = opt('--notes', 60);
const REPS = opt('--reps', 5);
const DISTS = (args.includes('--dists') ? args[args.indexOf('--dists') + 1] : join(REPO, 'dist')).split(',').map((d) => resolve(REPO, d));
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };

type Structured = { effective_mode: string; warnings: string[] };

async function connect(dist: string, vault: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(dist, 'mcp.mjs'), '--vault', vault], env: ENV, stderr: 'ignore' });
  const client = new Client({ name: 'bench-cold', version: '1' });
  await client.connect(transport);
  return client;
}

async function hybrid(client: Client, query: string): Promise<{ ms: number; mode: string; warnings: string[] }> {
  const t0 = performance.now();
  const r = await client.callTool({ name: 'recall_memory', arguments: { query, mode: 'hybrid' } }, undefined, { timeout: 120_000 });
  const ms = performance.now() - t0;
  const s = r.structuredContent as Structured;
  return { ms, mode: s.effective_mode, warnings: s.warnings };
}

async function mcpCold(dist: string, vault: string, query: string) {
  const client = await connect(dist, vault);
  try {
    // Two BM25 calls first: the open and first scan are not what this bench measures; the second one's latency is
    // "the query itself" (scan before answer + BM25 + the protocol round trip), the floor of any call.
    await client.callTool({ name: 'recall_memory', arguments: { query, mode: 'bm25' } });
    const b0 = performance.now();
    await client.callTool({ name: 'recall_memory', arguments: { query, mode: 'bm25' } });
    const bm25Ms = performance.now() - b0;
    const first = await hybrid(client, query);
    let calls = 1;
    let withVectors: Awaited<ReturnType<typeof hybrid>> | undefined = first.mode === 'hybrid' ? first : undefined;
    while (!withVectors && calls < 60) {
      calls++;
      const r = await hybrid(client, query);
      if (r.mode === 'hybrid') withVectors = r;
    }
    return { bm25Ms, firstMs: first.ms, firstMode: first.mode, firstWarnings: first.warnings, callsUntilHybrid: withVectors ? calls : undefined, firstHybridMs: withVectors?.ms };
  } finally {
    await client.close();
  }
}

function cliRecall(dist: string, vault: string, query: string, mode: string) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(dist, 'cli.mjs'), 'recall', query, '--mode', mode, '--json', '--vault', vault], { env: ENV, encoding: 'utf8', timeout: 120_000 });
  const ms = performance.now() - t0;
  const out = JSON.parse(r.stdout) as { effectiveMode: string; warnings: string[] };
  return { ms, mode: out.effectiveMode, warnings: out.warnings, status: r.status };
}

function cliCold(dist: string, vault: string, query: string) {
  const bm25 = cliRecall(dist, vault, query, 'bm25'); // the floor: process start, open, scan, BM25, exit
  return { ...cliRecall(dist, vault, query, 'hybrid'), bm25Ms: bm25.ms };
}

async function embedAll(vault: string, query: string): Promise<void> {
  const client = await connect(DISTS[0], vault);
  try {
    for (let i = 0; i < 200; i++) {
      const r = await client.callTool({ name: 'recall_memory', arguments: { query, mode: 'hybrid' } });
      const s = r.structuredContent as Structured;
      if (s.effective_mode === 'hybrid' && !s.warnings.some((w) => /waiting for vectors/.test(w))) return;
    }
    throw new Error('the vault never got all its vectors');
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'k0-cold-bench-'));
  try {
    const seed = join(work, 'seed');
    const gen = generateVault(join(seed, '.k0maru', 'wiki'), NOTES);
    const query = gen.queries[1] ?? 'redis failover lock';
    spawnSync(process.execPath, [join(DISTS[0], 'cli.mjs'), 'scan', '--vault', seed], { env: ENV, stdio: 'ignore' });
    const warm = join(work, 'warm');
    cpSync(seed, warm, { recursive: true });
    await embedAll(warm, query);
    const rows: Record<string, unknown>[] = [];
    for (const [label, from] of [['no-vectors', seed], ['vectors-present', warm]] as const) {
      const mcps: Awaited<ReturnType<typeof mcpCold>>[][] = DISTS.map(() => []);
      const clis: ReturnType<typeof cliCold>[][] = DISTS.map(() => []);
      let n = 0;
      for (let i = 0; i < REPS; i++) {
        for (const [d, dist] of DISTS.entries()) {
          const a = join(work, `${label}-${n++}`);
          cpSync(from, a, { recursive: true });
          mcps[d].push(await mcpCold(dist, a, query));
          const b = join(work, `${label}-${n++}`);
          cpSync(from, b, { recursive: true });
          clis[d].push(cliCold(dist, b, query));
        }
      }
      for (const [d, dist] of DISTS.entries()) {
        const mcp = mcps[d];
        const cli = clis[d];
        const row = {
          dist,
          vault: label,
          notes: NOTES,
          mcpBm25CallMs: round(median(mcp.map((m) => m.bm25Ms)), 0),
          mcpFirstHybridCallMs: { median: round(median(mcp.map((m) => m.firstMs)), 0), max: round(Math.max(...mcp.map((m) => m.firstMs)), 0) },
          mcpFirstModes: mcp.map((m) => m.firstMode),
          mcpFirstWarning: mcp[0].firstWarnings[0],
          mcpCallsUntilHybrid: mcp.map((m) => m.callsUntilHybrid),
          mcpFirstVectorCallMs: round(median(mcp.map((m) => m.firstHybridMs ?? NaN)), 0),
          cliBm25WallMs: round(median(cli.map((c) => c.bm25Ms)), 0),
          cliWallMs: { median: round(median(cli.map((c) => c.ms)), 0), max: round(Math.max(...cli.map((c) => c.ms)), 0) },
          cliModes: cli.map((c) => c.mode),
          cliWarning: cli[0].warnings[0],
          cliExit: cli.map((c) => c.status),
        };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
    mkdirSync(join(REPO, 'bench', 'results'), { recursive: true });
    const label = args.includes('--label') ? args[args.indexOf('--label') + 1] : 'latest';
    writeFileSync(join(REPO, 'bench', 'results', `coldRecall-${label}.json`), JSON.stringify({ date: new Date().toISOString(), loadAverage: loadavg().map((l) => round(l, 1)), rows }, null, 2) + '\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Wall time, CPU time (user + sys) and max RSS (from /usr/bin/time) of one whole process. */
function timedProcess(argv: string[]): { ms: number; cpuMs: number; rssMb: number; stdout: string; status: number | null } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', process.execPath, ...argv], { env: { ...ENV, ...RUNTIME_ENV }, encoding: 'utf8', timeout: 120_000 });
  const ms = performance.now() - t0;
  const [kb, user, sys] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { ms, cpuMs: round((user + sys) * 1000, 0), rssMb: round(kb / 1024, 0), stdout: r.stdout, status: r.status };
}

/** `K0MARU_EMBED_RUNTIME` passed through to the measured one-shots (unset: auto = native where shipped). */
const RUNTIME_ENV: Record<string, string> = process.env.K0MARU_EMBED_RUNTIME ? { K0MARU_EMBED_RUNTIME: process.env.K0MARU_EMBED_RUNTIME } : {};

function rssMbOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? round(Number(m[1]) / 1024, 0) : NaN;
}

async function mcpServer(dist: string, vault: string, debug = false) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(dist, 'mcp.mjs'), '--vault', vault, ...(debug ? ['--debug'] : [])], env: ENV, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'bench-scale', version: '1' });
  await client.connect(transport);
  const call = async (query: string, mode: string) => {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'recall_memory', arguments: { query, mode } }, undefined, { timeout: 120_000 });
    return { ms: performance.now() - t0, sc: r.structuredContent as Structured & { coverage?: { embedded: number; passages: number } } };
  };
  return { client, call, pid: transport.pid!, stderr: () => stderr };
}

const dist = (xs: number[]) => ({ p50: round(percentile(xs, 50), 1), p95: round(percentile(xs, 95), 1), max: round(Math.max(...xs), 1) });

async function scale(): Promise<void> {
  const notes = opt('--notes', 5000);
  const calls = opt('--calls', 20);
  const reps = opt('--reps', 3);
  const fillNotes = opt('--fill-notes', 300);
  const label = args.includes('--label') ? `-${args[args.indexOf('--label') + 1]}` : '';
  const work = mkdtempSync(join(tmpdir(), 'k0-scale-bench-'));
  const out: Record<string, unknown> = { date: new Date().toISOString(), notes, calls, loadAverageStart: loadavg().map((l) => round(l, 1)) };
  try {
    // 1. Every vector present.
    const full = join(work, 'full');
    const gen = generateVault(join(full, '.k0maru', 'wiki'), notes);
    const queries = gen.queries.length ? gen.queries : ['redis failover lock'];
    const { openProject } = await import('../src/core/project');
    const { VectorStore } = await import('../src/core/search/vector');
    const project = openProject({ vault: full, env: {} });
    let passages = 0;
    try {
      await project.scan();
      const store = new VectorStore(project.index, 'use-lite-en-v1-int8', 512);
      const todo = store.pendingPassages();
      for (let i = 0; i < todo.length; i += 1000) {
        store.put(
          todo.slice(i, i + 1000).map((p, k) => {
            const v = Float32Array.from({ length: 512 }, (_, j) => Math.sin((i + k + 1) * 0.7 + j * 1.3));
            const n = Math.hypot(...v);
            return { hash: p.hash, vector: v.map((x) => x / n) };
          }),
        );
      }
      passages = store.size.passages;
    } finally {
      project.close();
    }
    out.passages = passages;
    // Whole-process one-shots, interleaved across the builds (`--dists before,after`) and the two modes, so a busy
    // machine loads them alike. One unmeasured hybrid call per build first: a build that keeps a vector snapshot
    // writes it then (as `scan --embed` would have), and every measured call finds the state a user's second call
    // finds. CPU is the process's user + sys (from /usr/bin/time), beside wall.
    type Run = { ms: number; cpuMs: number; rssMb: number; label: string };
    const oneShot = DISTS.map(() => ({ bm25: [] as Run[], hybrid: [] as Run[] }));
    const recallArgs = (d: string, q: string, mode: string) => [join(d, 'cli.mjs'), 'recall', q, '--mode', mode, '--json', '--vault', full];
    for (const d of DISTS) timedProcess(recallArgs(d, queries[0], 'hybrid'));
    for (let i = 0; i < reps; i++) {
      for (const [k, d] of DISTS.entries()) {
        for (const mode of ['bm25', 'hybrid'] as const) {
          const r = timedProcess(recallArgs(d, queries[i % queries.length], mode));
          const j = JSON.parse(r.stdout || '{}') as { effectiveModeLabel?: string; warnings?: string[] };
          oneShot[k][mode].push({ ms: r.ms, cpuMs: r.cpuMs, rssMb: r.rssMb, label: `${j.effectiveModeLabel}${j.warnings?.length ? ` (${j.warnings[0]})` : ''}` });
        }
      }
    }
    const summary = (o: (typeof oneShot)[number], dist: string) => {
      const med = (rs: Run[], f: (r: Run) => number) => round(median(rs.map(f)), 0);
      return {
        dist,
        bm25WallMs: med(o.bm25, (r) => r.ms),
        hybridWallMs: med(o.hybrid, (r) => r.ms),
        ratio: round(median(o.hybrid.map((r) => r.ms)) / median(o.bm25.map((r) => r.ms)), 2),
        bm25CpuMs: med(o.bm25, (r) => r.cpuMs),
        hybridCpuMs: med(o.hybrid, (r) => r.cpuMs),
        cpuRatio: round(median(o.hybrid.map((r) => r.cpuMs)) / median(o.bm25.map((r) => r.cpuMs)), 2),
        bm25RssMb: median(o.bm25.map((r) => r.rssMb)),
        hybridRssMb: median(o.hybrid.map((r) => r.rssMb)),
        hybridAnswers: o.hybrid.map((r) => r.label),
        runs: o,
      };
    };
    const perDist = DISTS.map((d, k) => summary(oneShot[k], d));
    out.cliOneShot = perDist[perDist.length - 1];
    if (DISTS.length > 1) out.cliOneShotByDist = perDist;
    out.loadAverageAfterOneShot = loadavg().map((l) => round(l, 1));
    for (const p of perDist) console.log(JSON.stringify({ ...p, runs: undefined }));
    if (args.includes('--one-shot-only')) {
      out.loadAverageEnd = loadavg().map((l) => round(l, 1));
      writeFileSync(join(REPO, 'bench', 'results', `coldRecall-scale-${notes}${label}.json`), JSON.stringify(out, null, 2) + '\n');
      return;
    }

    const servers: Record<string, unknown> = {};
    for (const mode of ['hybrid', 'bm25']) {
      const s = await mcpServer(DISTS[DISTS.length - 1], full);
      try {
        let first = await s.call(queries[0], mode);
        for (let n = 0; mode === 'hybrid' && first.sc.effective_mode !== 'hybrid' && n < 60; n++) first = await s.call(queries[0], mode);
        const times: number[] = [];
        for (let i = 0; i < calls; i++) times.push((await s.call(queries[i % queries.length], mode)).ms);
        servers[mode] = { warmCallMs: dist(times), rssMbAfterCalls: rssMbOf(s.pid), answeredAs: first.sc.effective_mode };
      } finally {
        await s.client.close();
      }
    }
    out.mcpWarm = servers;
    console.log(JSON.stringify(servers));

    // 2. Tool calls during the background fill.
    const cold = join(work, 'cold');
    const g2 = generateVault(join(cold, '.k0maru', 'wiki'), fillNotes, 7);
    const q2 = g2.queries.length ? g2.queries : ['redis failover lock'];
    const s = await mcpServer(DISTS[DISTS.length - 1], cold, true);
    try {
      const before: Record<string, number[]> = { bm25: [] };
      await s.call(q2[0], 'bm25');
      for (let i = 0; i < calls; i++) before.bm25.push((await s.call(q2[i % q2.length], 'bm25')).ms);
      let h = await s.call(q2[0], 'hybrid'); // starts the model
      for (let n = 0; h.sc.effective_mode === 'bm25' && n < 120; n++) h = await s.call(q2[0], 'hybrid');
      const during: Record<string, number[]> = { bm25: [], hybrid: [] };
      const coverage: string[] = [];
      for (let i = 0; i < calls; i++) {
        during.bm25.push((await s.call(q2[i % q2.length], 'bm25')).ms);
        const r = await s.call(q2[i % q2.length], 'hybrid');
        during.hybrid.push(r.ms);
        coverage.push(r.sc.effective_mode);
      }
      const stillFilling = !/every passage has its vector/.test(s.stderr());
      out.duringFill = {
        notes: fillNotes,
        bm25CallMsBeforeFill: dist(before.bm25),
        bm25CallMsDuringFill: dist(during.bm25),
        hybridCallMsDuringFill: dist(during.hybrid),
        addedBm25P95Ms: round(percentile(during.bm25, 95) - percentile(before.bm25, 95), 1),
        fillStillRunningAtEnd: stillFilling,
        coverageSeen: [coverage[0], coverage[coverage.length - 1]],
      };
      console.log(JSON.stringify(out.duringFill));
    } finally {
      await s.client.close();
    }
    out.loadAverageEnd = loadavg().map((l) => round(l, 1));
    writeFileSync(join(REPO, 'bench', 'results', `coldRecall-scale-${notes}${label}.json`), JSON.stringify(out, null, 2) + '\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

(args.includes('--scale') ? scale() : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
