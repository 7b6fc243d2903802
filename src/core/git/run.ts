import { execFile, execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { K0Error } from '../errors';
import { cancelled, throwIfCancelled } from '../host/cancel';

/**
 * The one way the product runs git. A repository's own config can name programs git runs on its behalf
 * (`core.fsmonitor`, `diff.external`, `diff.<driver>.command` / `.textconv`, `filter.<driver>.clean` / `.process`,
 * `core.pager`, hooks); a repository handed to us (an MCP `repo_path`, an extracted archive, a nested
 * checkout) must not make our read-only calls execute anything. So every call:
 *  - runs git with execFile (no shell) and with the cwd checked first (a file or a missing folder is a coded error,
 *    not `spawn ENOTDIR`);
 *  - disables the programs none of our calls needs: `-c core.fsmonitor=false`, `-c core.hooksPath=/dev/null`
 *    (none of our commands runs hooks; the one that asks where hooks live opts out), `-c diff.external=`,
 *    `-c core.pager=cat` plus `--no-pager`, `-c protocol.allow=never` (we never talk to a remote),
 *    `-c gc.auto=0 -c maintenance.auto=false`; `-c` values reach any git process git itself starts;
 *  - `diff` always gets `--no-ext-diff --no-textconv --ignore-submodules=all` (see GIT_DIFF_SAFE);
 *  - with `worktree: true` (commands that read working-tree files, whose content git may pipe through a clean
 *    filter), every filter driver the configuration defines is emptied for the call
 *    (`-c filter.<name>.clean= -c filter.<name>.smudge= -c filter.<name>.process= -c filter.<name>.required=false`);
 *    the names come from `git config --get-regexp`, which reads config and runs nothing.
 * System and global config are still read: they are the user's and administrator's own (e.g. `safe.directory`
 * in CI containers), not something a repository can carry.
 */

const HARDENING = [
  '--no-pager',
  '-c', 'core.fsmonitor=false',
  '-c', 'diff.external=',
  '-c', 'core.pager=cat',
  '-c', 'protocol.allow=never',
  '-c', 'gc.auto=0',
  '-c', 'maintenance.auto=false',
];
const NO_HOOKS = ['-c', `core.hooksPath=${process.platform === 'win32' ? 'NUL' : '/dev/null'}`];

/** Flags every `git diff` we run carries: no external diff drivers, no textconv, no submodule recursion. */
export const GIT_DIFF_SAFE = ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all'];

export interface GitRunOptions {
  /** Exit codes that count as success (default [0]). */
  okCodes?: number[];
  /** The command reads working-tree files: empty every configured filter driver for it. */
  worktree?: boolean;
  /** Keep the repository's `core.hooksPath` (only for asking git where the hooks folder is). */
  keepHooksPath?: boolean;
  env?: NodeJS.ProcessEnv;
  /** A withdrawn request kills the git process (SIGTERM) and the call ends with CANCELLED, instead of leaving git running. */
  signal?: AbortSignal;
  /**
   * With `worktree`: a holder the caller keeps for several calls in one operation; the first call stores the filter
   * overrides it read from config here and the others reuse them (one `git config` per operation, not per call).
   */
  filterCache?: { overrides?: Promise<string[]> };
  /** Written to git's stdin (for `--stdin` / `--batch` forms that take many requests in one process). */
  input?: string;
}

function gitEnv(base: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...(base ?? process.env), GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
  // Programs named by the environment rather than config: an inherited one must not run for our reads either.
  delete env.GIT_EXTERNAL_DIFF;
  delete env.GIT_ASKPASS;
  delete env.SSH_ASKPASS;
  return env;
}

function checkCwd(cwd: string): void {
  let st;
  try {
    st = statSync(cwd);
  } catch {
    throw new K0Error('NOT_A_GIT_REPO', `${cwd} does not exist`);
  }
  if (!st.isDirectory()) throw new K0Error('NOT_A_GIT_REPO', `${cwd} is not a folder (a repository path must name a folder)`);
}

/** A NUL byte cannot be passed to a process: say so with a code instead of Node's TypeError. */
function checkArgs(args: string[]): void {
  if (args.some((a) => a.includes('\0'))) throw new K0Error('INVALID_ARGUMENT', 'a git argument (branch, path) contains a NUL byte');
}

function fullArgs(args: string[], opts: GitRunOptions, filters: string[]): string[] {
  return [...HARDENING, ...(opts.keepHooksPath ? [] : NO_HOOKS), ...filters, ...args];
}

/** What a failed call means, as a coded error (git missing, not a repository, anything else). */
function failure(cwd: string, args: string[], err: NodeJS.ErrnoException | null, stderr: string): K0Error {
  if (err?.code === 'ENOENT' && typeof err.syscall === 'string' && err.syscall.startsWith('spawn')) return new K0Error('GIT_FAILED', 'git is not installed or not on PATH');
  if (/not a git repository/i.test(stderr)) return new K0Error('NOT_A_GIT_REPO', `${cwd} is not inside a git repository`);
  if (/dubious ownership/i.test(stderr)) return new K0Error('NOT_A_GIT_REPO', `${cwd}: git refuses a repository owned by another user (safe.directory)`);
  const shown = args.filter((a, i) => a !== '-c' && args[i - 1] !== '-c' && !a.startsWith('--no-')).join(' ');
  return new K0Error('GIT_FAILED', `git ${shown}: ${stderr.trim() || err?.message || 'failed'}`);
}

function exitCode(err: NodeJS.ErrnoException | null): number {
  if (!err) return 0;
  return typeof err.code === 'number' ? err.code : -1;
}

const FILTER_KEY = /^filter\.(.+)\.(clean|smudge|process|required)$/;

/** `-c` overrides that empty every filter driver the configuration (any scope, includes followed) defines. */
function filterOverrides(names: string): string[] {
  const seen = new Set<string>();
  for (const key of names.split('\0')) {
    const m = FILTER_KEY.exec(key.trim());
    if (m) seen.add(m[1]);
  }
  const out: string[] = [];
  for (const n of seen) out.push('-c', `filter.${n}.clean=`, '-c', `filter.${n}.smudge=`, '-c', `filter.${n}.process=`, '-c', `filter.${n}.required=false`);
  return out;
}

function execAsync(cwd: string, argv: string[], env: NodeJS.ProcessEnv, signal?: AbortSignal, input?: string): Promise<{ err: NodeJS.ErrnoException | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile('git', argv, { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8', env, windowsHide: true, signal }, (err, stdout, stderr) =>
      done({ err: err as NodeJS.ErrnoException | null, stdout, stderr }));
    // An early exit (bad request) closes the pipe: the write error is git's failure, reported through the callback.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

/** Runs `git <args>` in `cwd` with the hardening above; resolves stdout, rejects with a coded K0Error. */
export async function runGit(cwd: string, args: string[], opts: GitRunOptions = {}): Promise<string> {
  checkCwd(cwd);
  checkArgs(args);
  throwIfCancelled(opts.signal, 'git');
  const env = gitEnv(opts.env);
  let filters: string[] = [];
  if (opts.worktree) {
    // Exit 1 = no filter configured. Any other failure surfaces from the real command below.
    const read = async () => {
      const r = await execAsync(cwd, fullArgs(['config', '-z', '--name-only', '--get-regexp', '^filter\\.'], opts, []), env, opts.signal);
      return r.err ? [] : filterOverrides(r.stdout);
    };
    if (opts.filterCache) filters = await (opts.filterCache.overrides ??= read());
    else filters = await read();
  }
  const argv = fullArgs(args, opts, filters);
  const r = await execAsync(cwd, argv, env, opts.signal, opts.input);
  if (opts.signal?.aborted) throw cancelled('git');
  if (r.err && !(opts.okCodes ?? [0]).includes(exitCode(r.err))) throw failure(cwd, args, r.err, r.stderr);
  return r.stdout;
}

/** Synchronous form for the installers (they run once, interactively). Same hardening. */
export function runGitSync(cwd: string, args: string[], opts: GitRunOptions = {}): string {
  checkCwd(cwd);
  checkArgs(args);
  const env = gitEnv(opts.env);
  let filters: string[] = [];
  if (opts.worktree) {
    try {
      filters = filterOverrides(execFileSync('git', fullArgs(['config', '-z', '--name-only', '--get-regexp', '^filter\\.'], opts, []), { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    } catch {
      // none configured
    }
  }
  try {
    return execFileSync('git', fullArgs(args, opts, filters), { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024, windowsHide: true });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { status?: number | null; stderr?: string };
    if (typeof err.status === 'number' && (opts.okCodes ?? [0]).includes(err.status)) return String((err as { stdout?: string }).stdout ?? '');
    throw failure(cwd, args, err.status == null ? err : null, String(err.stderr ?? ''));
  }
}
