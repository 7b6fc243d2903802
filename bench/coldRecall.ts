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
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateVault } from './lib/vaultGen';
import { median, round } from './lib/stats';

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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
