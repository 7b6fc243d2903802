// BM25 channel before → after a change, interleaved query by query in one process so load hits both alike:
//   npx tsx bench/bm25Before.ts --before DIR [--sizes 500,5000,20000]
// DIR is a copy of the tree before the change (e.g. `git worktree add DIR <commit>` or `git archive <commit> src
// bench | tar -x -C DIR`, with node_modules linked). Each side indexes its own copy of the same generated vault
// (same seed) with its own schema; the query is timed on one, then on the other. CPU = this process's user+sys.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateVault } from './lib/vaultGen';
import { exponent, median, percentile, round } from './lib/stats';

type Search = (idx: unknown, q: string, pool: number) => { docId: number }[];
interface Side {
  name: string;
  open: (o: { vault: string }) => { scan(): Promise<unknown>; index: { get(sql: string): Record<string, unknown> | null }; close(): void };
  search: Search;
  engine: () => string;
}

function side(name: string, tree: string): Side {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const project = require(join(tree, 'src', 'core', 'project'));
  const bm25 = require(join(tree, 'src', 'core', 'search', 'bm25'));
  const eng = require(join(tree, 'src', 'core', 'index', 'sqliteEngine'));
  return { name, open: project.openProject, search: bm25.searchBm25, engine: eng.engineName };
}

function vaultFor(label: string, n: number): { root: string; queries: string[] } {
  const root = join(tmpdir(), label === 'after' ? 'k0maru-bench-vaults' : 'k0maru-bench-vaults-before', `v${n}-seed42`);
  const marker = join(root, 'queries.json');
  if (!existsSync(marker)) {
    rmSync(root, { recursive: true, force: true });
    const gen = generateVault(join(root, '.k0maru', 'wiki'), n);
    writeFileSync(marker, JSON.stringify(gen.queries));
  }
  return { root, queries: JSON.parse(readFileSync(marker, 'utf8')) };
}

async function main() {
  const argv = process.argv.slice(2);
  const before = argv[argv.indexOf('--before') + 1];
  if (!argv.includes('--before') || !before) throw new Error('usage: bench/bm25Before.ts --before DIR [--sizes 500,5000,20000]');
  const sizes = (argv.includes('--sizes') ? argv[argv.indexOf('--sizes') + 1] : '500,5000,20000').split(',').map(Number);
  const sides = [side('before', resolve(before)), side('after', resolve(__dirname, '..'))];
  const rows: Record<string, unknown>[] = [];
  for (const n of sizes) {
    const opened = [];
    for (const s of sides) {
      const v = vaultFor(s.name, n);
      const p = s.open({ vault: v.root });
      await p.scan();
      opened.push({ s, p, queries: v.queries });
    }
    const queries = opened[1].queries;
    const cpu: Record<string, number[]> = { before: [], after: [] };
    const wall: Record<string, number[]> = { before: [], after: [] };
    for (const o of opened) for (const q of queries) o.s.search(o.p.index, q, 20); // warm both
    let top10Overlap = 0;
    for (const q of queries) {
      const got: number[][] = [];
      for (const o of opened) {
        const t = performance.now();
        const c = process.cpuUsage();
        const hits = o.s.search(o.p.index, q, 20);
        const u = process.cpuUsage(c);
        wall[o.s.name].push(performance.now() - t);
        cpu[o.s.name].push((u.user + u.system) / 1000);
        got.push(hits.slice(0, 10).map((h) => h.docId));
      }
      // Doc ids are assigned in scan order on both sides (same files, same order), so they can be compared.
      if (got[0].length) top10Overlap += got[1].filter((d) => got[0].includes(d)).length / got[0].length;
    }
    const stat = (xs: number[]) => ({ p50: round(median(xs), 3), p95: round(percentile(xs, 95), 3) });
    const row = {
      notes: n,
      engine: opened[1].s.engine(),
      chunks: Number(opened[1].p.index.get('SELECT COUNT(*) AS n FROM chunks')!.n),
      beforeCpuMs: stat(cpu.before),
      afterCpuMs: stat(cpu.after),
      beforeWallMs: stat(wall.before),
      afterWallMs: stat(wall.after),
      meanTop10Overlap: round(top10Overlap / queries.length, 3),
      load1: round(loadavg()[0], 2),
    };
    console.log(JSON.stringify(row));
    rows.push(row);
    for (const o of opened) o.p.close();
  }
  if (rows.length > 1) {
    const fit = (k: string, q: 'p50' | 'p95') => exponent(rows.map((r) => r.notes as number), rows.map((r) => (r[k] as Record<string, number>)[q]));
    console.log(JSON.stringify({ exponentsVsNotes: { beforeCpuP50: fit('beforeCpuMs', 'p50'), afterCpuP50: fit('afterCpuMs', 'p50'), beforeCpuP95: fit('beforeCpuMs', 'p95'), afterCpuP95: fit('afterCpuMs', 'p95') } }));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
