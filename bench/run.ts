// `npm run bench`: runs every benchmark in its own process (so one's memory and JIT state never skews another),
// in one sitting, so the ratios in the results compare numbers taken on the same machine at the same time.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const BENCHES = [
  'foundation.ts', 'guard.ts', 'economy.ts', 'embed.ts', 'mcp.ts', 'console.ts', 'guardEval.ts', 'hookStart.ts', 'startCost.ts', 'offloadEval.ts', 'gcEval.ts', 'stale.ts',
  // Issue 14 (quality first: it builds the cached corpus vectors that floor.ts reads), 17 and 18.
  'quality/run.ts', 'quality/floor.ts', 'embedRuntime.ts', 'coldRecall.ts', 'coldIndex.ts', 'indexRobustness.ts', 'staleFactor.ts', 'stale-eval/heldout.ts',
];
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const extra = process.argv.slice(2).filter((a) => a.startsWith('--'));
let failed = 0;
for (const file of BENCHES) {
  const path = join(__dirname, file);
  if (!existsSync(path) || (only.length && !only.some((o) => file.startsWith(o)))) continue;
  console.log(`\n=== bench/${file} ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', path, ...extra], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`bench/${file} failed with exit code ${r.status}`);
  }
}
console.log(`\nResults are in bench/results/*.json`);
process.exit(failed ? 1 : 0);
