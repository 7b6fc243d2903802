// Foundation benchmark: incremental scan vs. the bare stat floor, cold indexing rate, BM25 recall latency,
// at several vault sizes, plus the real ADR corpus, plus the BM25 channel's growth from 500 to 20,000 notes
// (issue #17: the statement before and after, side by side in one run, and nDCG@10 of both on bench/quality).
//   npx tsx bench/foundation.ts [--quick] [--bm25-only]  → bench/results/foundation.json
// --bm25-only runs only the BM25 part and replaces that part of the existing results file.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProject } from '../src/core/project';
import { recall } from '../src/core/search/recall';
import { searchBm25, type Bm25Strategy } from '../src/core/search/bm25';
import { buildFtsQuery } from '../src/core/search/ftsQuery';
import { generateVault } from './lib/vaultGen';
import { readGradedQueries } from './quality/graded';
import { exponent, median, percentile, round, timeAsync, timeIt } from './lib/stats';

function statWalk(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += statWalk(p);
    else if (e.name.endsWith('.md')) {
      statSync(p);
      n++;
    }
  }
  return n;
}

async function benchSize(n: number) {
  const root = mkdtempSync(join(tmpdir(), `k0-bench-${n}-`));
  const notes = join(root, '.k0maru', 'wiki');
  const gen = generateVault(notes, n);
  try {
    // Cold index twice: the first run in this process also pays one-time costs (JIT warm-up, WASM compiles),
    // the second is the steady rate a long-lived host (editor, MCP server) sees on a new vault.
    const first = openProject({ vault: root });
    const coldFirst = await timeAsync(() => first.scan());
    first.close();
    rmSync(join(root, '.k0maru', 'index.db'), { force: true });
    const p = openProject({ vault: root });
    const cold = await timeAsync(() => p.scan());
    const reps = n >= 5000 ? 15 : 40;
    for (let i = 0; i < 3; i++) {
      statWalk(notes);
      await p.scan();
    }
    // Interleave floor and scan samples so machine noise hits both alike.
    const floor: number[] = [];
    const clean: number[] = [];
    for (let i = 0; i < reps; i++) {
      floor.push(timeIt(() => statWalk(notes)));
      clean.push(await timeAsync(() => p.scan()));
    }
    const files: string[] = [];
    for (const d of readdirSync(notes)) for (const f of readdirSync(join(notes, d))) files.push(join(notes, d, f));
    const touchTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = new Date(Date.now() + (i + 1) * 10_000);
      for (const f of files) utimesSync(f, t, t);
      const ms = await timeAsync(async () => {
        const r = await p.scan();
        if (r.touched !== n) throw new Error(`expected ${n} touched, got ${r.touched}`);
      });
      touchTimes.push(ms);
    }
    const recallTimes: number[] = [];
    for (const q of gen.queries) recallTimes.push(await timeAsync(() => recall(p, q, { mode: 'bm25', limit: 5 })));
    const chunks = Number(p.index.get('SELECT COUNT(*) AS n FROM chunks')!.n);
    p.close();
    const cleanMed = median(clean);
    const floorMed = median(floor);
    return {
      notes: n,
      chunks,
      coldIndexMs: round(cold),
      coldDocsPerSec: Math.round(n / (cold / 1000)),
      coldFirstInProcessMs: round(coldFirst),
      coldFirstInProcessDocsPerSec: Math.round(n / (coldFirst / 1000)),
      cleanScanMs: { p50: round(cleanMed), p95: round(percentile(clean, 95)) },
      statFloorMs: { p50: round(floorMed), p95: round(percentile(floor, 95)) },
      cleanScanToFloorRatio: round(cleanMed / floorMed),
      touchOnlyScanMs: round(median(touchTimes)),
      recallBm25Ms: { p50: round(median(recallTimes), 3), p95: round(percentile(recallTimes, 95), 3), queries: recallTimes.length },
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function benchCorpus() {
  const corpus = join(__dirname, '..', '..', 'shared', 'corpus', 'adr-vault');
  try {
    statSync(corpus);
  } catch {
    return { skipped: `corpus not found at ${corpus}` };
  }
  const root = mkdtempSync(join(tmpdir(), 'k0-corpus-'));
  mkdirSync(join(root, '.k0maru'));
  writeFileSync(join(root, '.k0maru', 'config.json'), JSON.stringify({ vault: corpus }));
  try {
    const p = openProject({ vault: root });
    let report;
    const cold = await timeAsync(async () => {
      report = await p.scan();
    });
    const clean = await timeAsync(() => p.scan());
    const qs = ['SQLITE_BUSY', 'superseded', 'how do we deploy', 'database migration', 'feature flags', 'error handling', 'authentication tokens', 'logging format'];
    const times: number[] = [];
    for (let i = 0; i < 5; i++) for (const q of qs) times.push(await timeAsync(() => recall(p, q, { mode: 'bm25' })));
    const docs = Number(p.index.get('SELECT COUNT(*) AS n FROM documents')!.n);
    const chunks = Number(p.index.get('SELECT COUNT(*) AS n FROM chunks')!.n);
    p.close();
    return { docs, chunks, coldIndexMs: round(cold), coldDocsPerSec: Math.round(docs / (cold / 1000)), cleanScanMs: round(clean), recallBm25Ms: { p50: round(median(times), 3), p95: round(percentile(times, 95), 3) }, skipped: (report as unknown as { skipped: unknown[] }).skipped.length };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const STRATEGIES: Bm25Strategy[] = ['legacy', 'exact'];

/**
 * A generated vault kept between runs in the temp dir (20,000 notes take a while to write and to index): the notes
 * are written once per size and seed, the index is reused and brought up to date by a scan.
 */
async function cachedVault(n: number) {
  const root = join(tmpdir(), 'k0maru-bench-vaults', `v${n}-seed42`);
  const marker = join(root, 'queries.json');
  if (!existsSync(marker)) {
    rmSync(root, { recursive: true, force: true });
    const gen = generateVault(join(root, '.k0maru', 'wiki'), n);
    writeFileSync(marker, JSON.stringify(gen.queries));
  }
  const queries = JSON.parse(readFileSync(marker, 'utf8')) as string[];
  const p = openProject({ vault: root });
  await p.scan();
  return { p, queries };
}

/**
 * The BM25 channel alone (what recall --mode bm25 spends in SQLite), the old and the new statement timed on the same
 * query one after the other so load hits both alike; pool 20 is what recall uses for limit 5.
 */
interface Bm25Row {
  notes: number;
  chunks: number;
  queries: number;
  matchedChunks: { p50: number; p95: number };
  legacyMs: { p50: number; p95: number };
  exactMs: { p50: number; p95: number };
  legacyCpuMs: { p50: number; p95: number };
  exactCpuMs: { p50: number; p95: number };
  sameHitsAsLegacy: number;
  recallBm25Ms: { p50: number; p95: number };
}

async function bm25Scaling(sizes: number[]) {
  const rows: Bm25Row[] = [];
  for (const n of sizes) {
    const { p, queries } = await cachedVault(n);
    try {
      for (const q of queries) for (const s of STRATEGIES) searchBm25(p.index, q, 20, { strategy: s });
      const times: Record<string, number[]> = { legacy: [], exact: [] };
      // CPU time of this process beside the wall clock: on a machine shared with other work the wall clock mostly
      // measures the wait for a core, the CPU time what the query costs.
      const cpu: Record<string, number[]> = { legacy: [], exact: [] };
      let identical = 0;
      for (const q of queries) {
        const got: string[] = [];
        for (const s of STRATEGIES) {
          const t = performance.now();
          const c = process.cpuUsage();
          const hits = searchBm25(p.index, q, 20, { strategy: s });
          const used = process.cpuUsage(c);
          times[s].push(performance.now() - t);
          cpu[s].push((used.user + used.system) / 1000);
          got.push(hits.map((h) => `${h.docId}:${h.chunkId}:${h.score.toFixed(9)}`).join());
        }
        if (got[0] === got[1]) identical++;
      }
      const matches = queries.map((q) => Number(p.index.get('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', [buildFtsQuery(q)])!.n));
      const recallTimes: number[] = [];
      for (const q of queries) recallTimes.push(await timeAsync(() => recall(p, q, { mode: 'bm25', limit: 5 })));
      const stat = (xs: number[]) => ({ p50: round(median(xs), 3), p95: round(percentile(xs, 95), 3) });
      const row: Bm25Row = {
        notes: n,
        chunks: Number(p.index.get('SELECT COUNT(*) AS n FROM chunks')!.n),
        queries: queries.length,
        matchedChunks: { p50: median(matches), p95: percentile(matches, 95) },
        legacyMs: stat(times.legacy),
        exactMs: stat(times.exact),
        legacyCpuMs: stat(cpu.legacy),
        exactCpuMs: stat(cpu.exact),
        sameHitsAsLegacy: identical,
        recallBm25Ms: stat(recallTimes),
      };
      console.log(JSON.stringify(row));
      rows.push(row);
    } finally {
      p.close();
    }
  }
  const fit = (pick: (r: Bm25Row) => number, x: (r: Bm25Row) => number) => exponent(rows.map(x), rows.map(pick));
  const exponents = rows.length < 2 ? undefined : {
    note: 'k in ms ∝ x^k, least squares over the sizes above; x = notes, or the p50 number of chunks a query matches',
    legacyP95VsNotes: fit((r) => r.legacyMs.p95, (r) => r.notes),
    exactP95VsNotes: fit((r) => r.exactMs.p95, (r) => r.notes),
    legacyP50VsNotes: fit((r) => r.legacyMs.p50, (r) => r.notes),
    exactP50VsNotes: fit((r) => r.exactMs.p50, (r) => r.notes),
    legacyP50VsMatches: fit((r) => r.legacyMs.p50, (r) => r.matchedChunks.p50),
    exactP50VsMatches: fit((r) => r.exactMs.p50, (r) => r.matchedChunks.p50),
    legacyCpuP95VsNotes: fit((r) => r.legacyCpuMs.p95, (r) => r.notes),
    exactCpuP95VsNotes: fit((r) => r.exactCpuMs.p95, (r) => r.notes),
    legacyCpuP50VsMatches: fit((r) => r.legacyCpuMs.p50, (r) => r.matchedChunks.p50),
    exactCpuP50VsMatches: fit((r) => r.exactCpuMs.p50, (r) => r.matchedChunks.p50),
  };
  return { load: (await import('node:os')).loadavg().map((x) => round(x, 2)), sizes: rows, exponents, quality: await bm25Quality() };
}

function ndcg10(ranked: string[], rel: Record<string, number>): number {
  const gain = (g: number) => 2 ** g - 1;
  const dcg = ranked.slice(0, 10).reduce((s, p, i) => s + gain(rel[p] ?? 0) / Math.log2(i + 2), 0);
  const ideal = Object.values(rel).sort((a, b) => b - a).slice(0, 10).reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}

/**
 * nDCG@10 of the BM25 channel on bench/quality's graded queries over the real corpus, per query type, for both
 * statements: ranked as recall --mode bm25 ranks them (pool 30 for limit 10, superseded notes at half score).
 */
async function bm25Quality() {
  const corpus = join(__dirname, '..', '..', 'shared', 'corpus', 'adr-vault');
  if (!existsSync(corpus)) return { skipped: `corpus not found at ${corpus}` };
  const root = mkdtempSync(join(tmpdir(), 'k0-bm25q-'));
  mkdirSync(join(root, '.k0maru'));
  writeFileSync(join(root, '.k0maru', 'config.json'), JSON.stringify({ vault: corpus }));
  const p = openProject({ vault: root });
  try {
    await p.scan();
    const docs = new Map(p.index.all('SELECT id, path, superseded FROM documents').map((r) => [Number(r.id), { path: String(r.path), superseded: Number(r.superseded) === 1 }]));
    const out: Record<string, Record<string, number>> = {};
    for (const s of STRATEGIES) {
      const acc: Record<string, number[]> = { all: [] };
      for (const q of readGradedQueries()) {
        const ranked = searchBm25(p.index, q.query, 30, { strategy: s })
          .map((h) => ({ ...docs.get(h.docId)!, score: docs.get(h.docId)!.superseded ? h.score * 0.5 : h.score }))
          .sort((a, b) => b.score - a.score)
          .map((d) => d.path);
        for (const k of ['all', q.type]) (acc[k] ??= []).push(ndcg10(ranked, q.relevant));
      }
      out[s] = Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, round(v.reduce((a, b) => a + b, 0) / v.length, 4)]));
    }
    return { ndcg10: out };
  } finally {
    p.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main() {
  const quick = process.argv.includes('--quick');
  const outFile = join(__dirname, 'results', 'foundation.json');
  if (process.argv.includes('--bm25-only')) {
    const previous = existsSync(outFile) ? JSON.parse(readFileSync(outFile, 'utf8')) : {};
    previous.bm25Scaling = { date: new Date().toISOString(), ...(await bm25Scaling(quick ? [500, 5000] : [500, 5000, 20000])) };
    writeFileSync(outFile, JSON.stringify(previous, null, 2) + '\n');
    return;
  }
  const sizes = quick ? [500] : [500, 5000];
  const results: Record<string, unknown> = { machine: { node: process.version, cpus: (await import('node:os')).cpus().length }, date: new Date().toISOString(), sizes: [] as unknown[] };
  for (const n of sizes) {
    const r = await benchSize(n);
    (results.sizes as unknown[]).push(r);
    console.log(JSON.stringify(r));
  }
  results.corpus = await benchCorpus();
  console.log(JSON.stringify({ corpus: results.corpus }));
  results.bm25Scaling = await bm25Scaling(quick ? [500, 5000] : [500, 5000, 20000]);
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
