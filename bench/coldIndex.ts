// Cold index rate at one vault size on both SQLite engines, interleaved, optionally against another source tree
// (the code before a change) in the same run, so load hits every variant alike:
//   npx tsx bench/coldIndex.ts [--notes 5000] [--rounds 3] [--reps 4] [--tree DIR]...
// Each round spawns, per tree and per engine, one process running bench/lib/coldIndex.ts (reps cold indexes in a
// row: the first pays the process's one-time costs, the median of the rest is the steady rate). CPU is the
// child's own user+sys as it reports it; wall is its wall clock. Prints one JSON line per run and a summary.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateVault } from './lib/vaultGen';
import { findNode22 } from './lib/runtimes';
import { median, round } from './lib/stats';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const trees = argv.flatMap((a, i) => (argv[i - 1] === '--tree' ? [resolve(a)] : []));
if (!trees.length) trees.push(resolve(__dirname, '..'));
const notes = Number(opt('--notes', '5000'));
const rounds = Number(opt('--rounds', '3'));
const reps = Number(opt('--reps', '4'));

function vault(n: number): string {
  const root = join(tmpdir(), 'k0maru-bench-vaults', `cold-v${n}-seed42`);
  if (!existsSync(join(root, 'ready'))) {
    rmSync(root, { recursive: true, force: true });
    generateVault(join(root, '.k0maru', 'wiki'), n);
    writeFileSync(join(root, 'ready'), '');
  }
  return root;
}

interface Run {
  tree: string;
  engine: string;
  steadyCpuDocsPerSec: number;
  steadyWallDocsPerSec: number;
  firstCpuDocsPerSec: number;
  load1: number;
}

function main() {
  const root = vault(notes);
  const node22 = findNode22();
  const engines: [string, string][] = [['wasm', process.execPath]];
  if (node22) engines.push(['native', node22]);
  const runs: Run[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const tree of trees) {
      for (const [engine, node] of engines) {
        const out = execFileSync(node, ['--import', 'tsx', join(tree, 'bench', 'lib', 'coldIndex.ts'), root, String(reps)], {
          cwd: tree,
          env: { ...process.env, K0MARU_SQLITE: engine },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        const j = JSON.parse(out.trim().split('\n').pop()!);
        if (j.engine !== engine) throw new Error(`${node} ran ${j.engine}, expected ${engine}`);
        const run: Run = {
          tree,
          engine,
          steadyCpuDocsPerSec: j.cpu.steadyDocsPerSec,
          steadyWallDocsPerSec: j.wall.steadyDocsPerSec,
          firstCpuDocsPerSec: j.cpu.firstDocsPerSec,
          load1: round(loadavg()[0], 2),
        };
        console.log(JSON.stringify(run));
        runs.push(run);
      }
    }
  }
  const summary = trees.flatMap((tree) =>
    engines.map(([engine]) => {
      const mine = runs.filter((x) => x.tree === tree && x.engine === engine);
      return {
        tree,
        engine,
        notes,
        steadyCpuDocsPerSec: Math.round(median(mine.map((x) => x.steadyCpuDocsPerSec))),
        steadyWallDocsPerSec: Math.round(median(mine.map((x) => x.steadyWallDocsPerSec))),
        firstCpuDocsPerSec: Math.round(median(mine.map((x) => x.firstCpuDocsPerSec))),
        rounds: mine.length,
      };
    }),
  );
  console.log(JSON.stringify({ load: loadavg().map((x) => round(x, 2)), summary }, null, 2));
}

main();
