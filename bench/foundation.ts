// Foundation benchmark: incremental scan vs. the bare stat floor, cold indexing rate, BM25 recall latency,
// at several vault sizes, plus the real ADR corpus. `npx tsx bench/foundation.ts` → bench/results/foundation.json
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProject } from '../src/core/project';
import { recall } from '../src/core/search/recall';
import { generateVault } from './lib/vaultGen';
import { median, percentile, round, timeAsync, timeIt } from './lib/stats';

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

async function main() {
  const sizes = process.argv.includes('--quick') ? [500] : [500, 5000];
  const results: Record<string, unknown> = { machine: { node: process.version, cpus: (await import('node:os')).cpus().length }, date: new Date().toISOString(), sizes: [] as unknown[] };
  for (const n of sizes) {
    const r = await benchSize(n);
    (results.sizes as unknown[]).push(r);
    console.log(JSON.stringify(r));
  }
  results.corpus = await benchCorpus();
  console.log(JSON.stringify({ corpus: results.corpus }));
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'foundation.json'), JSON.stringify(results, null, 2) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
