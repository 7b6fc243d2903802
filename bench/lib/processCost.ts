import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { median, percentile, round } from './stats';

/** Whether CPU time can be measured (bash's `time`); without bash only wall time is. */
export const hasBash = spawnSync('bash', ['-c', 'exit 0']).status === 0;

/**
 * One whole process: CPU (user + sys, with its waited-for children, from bash's `time`) and wall time, both ms.
 * Without bash only wall time is known (cpu NaN). stderr goes to `errFile` so bash's own timing line stays apart.
 */
export function measureProcess(cwd: string, args: string[], opts: { errFile: string; env?: NodeJS.ProcessEnv; expectStatus?: number; node?: string }): { cpu: number; wall: number; stderr: string } {
  const node = opts.node ?? process.execPath; // another runtime (bench/lib/runtimes.ts) for the other SQLite engine
  const t = performance.now();
  const r = hasBash
    ? spawnSync('bash', ['-c', 'TIMEFORMAT="K0CPU %3U %3S"; time "$0" "$@" 2>"$K0_ERR" >/dev/null', node, ...args], { cwd, encoding: 'utf8', env: { ...process.env, ...opts.env, K0_ERR: opts.errFile } })
    : spawnSync(node, args, { cwd, encoding: 'utf8', env: { ...process.env, ...opts.env } });
  const wall = performance.now() - t;
  const stderr = hasBash ? readFileSync(opts.errFile, 'utf8') : r.stderr;
  const m = /K0CPU ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  if (hasBash && !m) throw new Error(`no timing from bash: ${r.stderr}`);
  // bash's `time` reports the command's status as its own
  if (r.status !== (opts.expectStatus ?? 0)) throw new Error(`${args.join(' ')} exited ${r.status}: ${stderr}`);
  return { cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN, wall, stderr };
}

export const summary = (xs: number[]) => ({ median: round(median(xs), 1), p95: round(percentile(xs, 95), 1), min: round(Math.min(...xs), 1) });

/** A whole-process bench needs the built CLI: without it the result file says so instead of failing the bench run. */
export function skippedWithoutCli(cli: string, out: string): boolean {
  if (existsSync(cli)) return false;
  writeFileSync(out, JSON.stringify({ when: new Date().toISOString(), skipped: 'dist/cli.mjs missing: run `node esbuild.mjs` first' }, null, 2) + '\n');
  console.log('skipped: dist/cli.mjs missing');
  return true;
}

/**
 * A private copy of the built CLI (dist/ without source maps and the webview), removed on exit: several people
 * rebuild dist/ while a bench runs, and a rebuild renames the lazy chunks under a running series.
 */
export function privateCli(cli: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'k0bench-dist-'));
  cpSync(dirname(cli), dir, { recursive: true, filter: (src) => !src.endsWith('.map') && !src.includes('/webview') });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'cli.mjs');
}
