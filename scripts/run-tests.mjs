// Runs the whole test suite: unit tests (node:test through tsx) and then, unless --unit, the tests that
// need the real VS Code host (code-server) and a real browser. Any failure fails the run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const unitOnly = process.argv.includes('--unit');
const filter = process.argv.slice(2).filter((a) => !a.startsWith('--'));

function find(dir, suffix) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p, suffix));
    else if (p.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

const pick = (files) => (filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files);
const unit = pick(find('test/unit', '.test.ts'));
const suites = [['unit', unit]];
// The short version of the reliability suite (test/stress/; `npm run test:stress` runs it at full size).
if (!unitOnly) suites.push(['stress (short)', pick(find('test/stress', '.test.ts'))]);
if (!unitOnly) suites.push(['integration', pick(find('test/integration', '.runner.ts'))], ['e2e', pick(find('test/e2e', '.test.ts'))]);

let failed = false;
let hostReady = false;
for (const [name, files] of suites) {
  if (!files.length) continue;
  if (name !== 'unit' && !name.startsWith('stress') && !hostReady) {
    // The integration and browser suites drive real programs; install or verify them first (idempotent, cached).
    const r = spawnSync('bash', ['scripts/ensure-test-host.sh'], { stdio: 'inherit' });
    if (r.status !== 0) {
      console.error('could not set up the VS Code host / browser for the integration tests (see above)');
      process.exit(1);
    }
    hostReady = true;
  }
  console.log(`\n=== ${name}: ${files.length} file(s) ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], { stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
