// `npm run test:stress`: the reliability suite of test/stress/ at the sizes of the attack report (FULL: 60 s of two
// MCP servers + CLI + hand edits, ×100 SIGKILLs, 10,000 fuzzed MCP calls, the hostile-vault and corruption sets),
// against the built CLI and MCP server. `-- --short` (or K0MARU_STRESS=short) runs the version `npm test` runs on
// every push. Everything talks over stdio and the file system: no network, not even loopback sockets.
// The whole run is bounded (killed and failed past its budget); figures go to bench/results/stress.json
// (stress-short.json for a short run) with the command that produced them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const short = process.argv.includes('--short') || process.env.K0MARU_STRESS === 'short';
const mode = short ? 'short' : 'full';
const budgetMs = short ? 15 * 60_000 : 60 * 60_000;
const filter = process.argv.slice(2).filter((a) => !a.startsWith('--'));

const build = spawnSync(process.execPath, ['esbuild.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const files = readdirSync('test/stress')
  .filter((f) => f.endsWith('.test.ts') && (!filter.length || filter.some((x) => f.includes(x))))
  .sort()
  .map((f) => join('test/stress', f));
const out = mkdtempSync(join(tmpdir(), 'k0stress-out-'));
const t0 = Date.now();
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
  stdio: 'inherit',
  env: { ...process.env, K0MARU_STRESS: mode, K0MARU_STRESS_OUT: out },
  timeout: budgetMs,
  killSignal: 'SIGKILL',
});
const figures = {};
for (const f of existsSync(out) ? readdirSync(out).sort() : []) {
  const { name, mode: _m, ...rest } = JSON.parse(readFileSync(join(out, f), 'utf8'));
  figures[name] = rest;
}
rmSync(out, { recursive: true, force: true });
const timedOut = r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGKILL';
const result = {
  mode,
  command: `npm run test:stress${short ? ' -- --short' : ''}${filter.length ? ` ${filter.join(' ')}` : ''}`,
  date: new Date().toISOString(),
  node: process.version,
  cores: (await import('node:os')).cpus().length,
  loadAverageAtEnd: (await import('node:os')).loadavg().map((n) => Math.round(n * 10) / 10),
  passed: r.status === 0,
  timedOut,
  seconds: Math.round((Date.now() - t0) / 1000),
  figures,
};
mkdirSync('bench/results', { recursive: true });
const dest = join('bench/results', short ? 'stress-short.json' : 'stress.json');
writeFileSync(dest, JSON.stringify(result, null, 2) + '\n');
console.log(`\nstress (${mode}): ${result.passed ? 'passed' : timedOut ? `over its ${budgetMs / 60_000} min budget` : 'FAILED'} in ${result.seconds} s; figures in ${dest}`);
process.exit(result.passed ? 0 : 1);
