import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { runGit } from '../git/run';
import { ignoreInGit, replaceFile } from './cacheFiles';
import { globMatcher } from './engine';
import { globSetKey, includeOrigins, unmatchedScopeDiagnostics } from './scopeCheck';
import type { GuardDiagnostic, GuardRule } from './types';

/**
 * "rule scope matches no files" (`rule.scope-matches-nothing`) against the repository: tracked files and untracked
 * ones git does not ignore (`git ls-files -co --exclude-standard`, through the hardened runner).
 *
 * Every guard run reports it (the pre-commit hook too), so the listing is cached in
 * `.k0maru/cache/scope-files.json`, keyed by a stamp read without starting git: HEAD (the HEAD file and the stat
 * of the ref it names) and the stat of git's index file (`GIT_INDEX_FILE` when git set one for a hook). Only
 * positive facts are cached — "this glob set matched a file at this stamp" — so a cache hit can only ever say
 * "nothing to report": every diagnostic comes from a fresh listing, and a scope that does match never gets one.
 * A hook run whose scopes all matched before, on the same HEAD and index, starts no git process at all. The cost
 * of that choice is a late diagnostic: an untracked file deleted since does not change the stamp, so a scope it
 * alone matched is reported once the index or HEAD next changes.
 */

export const SCOPE_CACHE_FILE = 'scope-files.json';
const FORMAT = 'k0maru-scope-files-1';
/** Glob sets remembered per stamp; a vault has far fewer distinct scopes. */
const MAX_KEYS = 4096;

export interface ScopeFilesOptions {
  /** `.k0maru/cache` of the project; without it nothing is cached. */
  cacheDir?: string;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** What one call did, for tests and the trace. */
export interface ScopeFilesResult {
  diagnostics: GuardDiagnostic[];
  /** `cache`: answered from the cache without git; `git`: listed the files; `none`: no rule has an include scope. */
  source: 'cache' | 'git' | 'none';
}

/** The repository's files as the guard's globs see them: tracked plus untracked-not-ignored, '/'-separated. */
export async function repositoryFiles(root: string, signal?: AbortSignal): Promise<string[]> {
  const out = await runGit(root, ['-c', 'core.quotePath=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { signal });
  return out.split('\0').filter(Boolean);
}

/** The scopes of `rules` (active, inferred policy applied) that match no file of the repository at `root`. */
export async function unmatchedScopes(root: string, rules: GuardRule[], opts: ScopeFilesOptions = {}): Promise<ScopeFilesResult> {
  const keys = new Set<string>();
  for (const r of rules) for (const o of includeOrigins(r)) if (o.globs.length) keys.add(globSetKey(o.globs));
  if (!keys.size) return { diagnostics: [], source: 'none' };
  const stamp = opts.cacheDir ? repositoryStamp(root, opts.env ?? process.env) : undefined;
  const cachePath = opts.cacheDir && join(opts.cacheDir, SCOPE_CACHE_FILE);
  const cached = stamp && cachePath ? readMatched(cachePath, stamp) : undefined;
  if (cached && [...keys].every((k) => cached.has(k))) return { diagnostics: [], source: 'cache' };

  const files = await repositoryFiles(root, opts.signal);
  const matched = new Set<string>();
  const matches = (globs: string[]): boolean => {
    const key = globSetKey(globs);
    if (matched.has(key)) return true;
    const m = globMatcher(globs);
    const hit = !!m && files.some((f) => m(f));
    if (hit) matched.add(key);
    return hit;
  };
  const diagnostics = unmatchedScopeDiagnostics(rules, matches);
  if (stamp && cachePath && opts.cacheDir) {
    // Keep what other rule sets (another project filter) learnt at this stamp too.
    const keep = cached ? [...cached].filter((k) => !keys.has(k)) : [];
    const next = [...matched, ...keep].slice(0, MAX_KEYS);
    // Nothing learnt (the same scopes still match nothing at this stamp): the file already says all of it.
    if (!cached || next.length !== cached.size || next.some((k) => !cached.has(k))) writeMatched(opts.cacheDir, cachePath, stamp, next);
  }
  return { diagnostics, source: 'git' };
}

/**
 * HEAD and git's index as one string, read from files (no git process: a hook pays ~5-50 ms per spawn). Undefined
 * — no cache — when the layout is not the plain one (GIT_DIR / GIT_WORK_TREE set, no `.git` at the root).
 */
export function repositoryStamp(root: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.GIT_DIR || env.GIT_WORK_TREE) return undefined;
  try {
    const gitDir = gitDirOf(root);
    if (!gitDir) return undefined;
    const common = commonDirOf(gitDir);
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    // The root too: one project's cache may serve a nested repository (`repo_path`) as well.
    const parts = [resolve(root), head];
    if (ref) parts.push(statStamp(join(common, ref)), statStamp(join(common, 'packed-refs')));
    const index = env.GIT_INDEX_FILE ? resolve(root, env.GIT_INDEX_FILE) : join(gitDir, 'index');
    parts.push(index, statStamp(index));
    return parts.join('|');
  } catch {
    return undefined;
  }
}

function gitDirOf(root: string): string | undefined {
  const dot = join(root, '.git');
  const st = lstatSync(dot);
  if (st.isDirectory()) return dot;
  if (!st.isFile()) return undefined;
  // A worktree or submodule: `.git` is a file naming the real git dir.
  const m = /^gitdir: (.+)$/m.exec(readFileSync(dot, 'utf8'));
  if (!m) return undefined;
  const dir = m[1].trim();
  return isAbsolute(dir) ? dir : resolve(root, dir);
}

function commonDirOf(gitDir: string): string {
  try {
    const c = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    return isAbsolute(c) ? c : resolve(gitDir, c);
  } catch {
    return gitDir;
  }
}

/** mtime, ctime, size and inode: an index rewritten within one timestamp tick still gets a new inode (git renames). */
function statStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.ctimeMs}:${st.size}:${st.ino}`;
  } catch {
    return '-';
  }
}

/** The glob sets known to match at `stamp`, or undefined when the file is missing, foreign, corrupt or a symlink. */
function readMatched(path: string, stamp: string): Set<string> | undefined {
  let fd: number;
  try {
    if (constants.O_NOFOLLOW === undefined && lstatSync(path).isSymbolicLink()) return undefined;
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > 4 * 1024 * 1024) return undefined;
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < st.size) {
      const got = readSync(fd, buf, n, st.size - n, n);
      if (!got) break;
      n += got;
    }
    const j = JSON.parse(buf.toString('utf8', 0, n)) as { format?: unknown; stamp?: unknown; matched?: unknown };
    if (j.format !== FORMAT || j.stamp !== stamp || !Array.isArray(j.matched)) return undefined;
    return new Set(j.matched.filter((k): k is string => typeof k === 'string'));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Temp file + rename beside the target, never through a symlinked folder; a failure (read-only checkout, full
 * disk) only means the next run lists again. Written by the guard's cache helpers (cacheFiles.ts): no node:crypto import on the hook's path, and a
 * temp name atomicWrite's sweep recognises.
 */
function writeMatched(dir: string, path: string, stamp: string, matched: string[]): void {
  try {
    mkdirSync(dir, { recursive: true });
    if (!lstatSync(dir).isDirectory()) return;
    ignoreInGit(dir);
    replaceFile(path, JSON.stringify({ format: FORMAT, stamp, matched }));
  } catch {
    // the next run lists the files again
  }
}

