import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isK0Error, K0Error } from '../errors';
import { GIT_DIFF_SAFE, runGit } from '../git/run';
import { isInside } from './confine';
import { parseUnifiedDiff } from './diffParser';
import type { ChangedFile } from './types';
import { toProjectPath } from '../vault/userPath';

/**
 * Where the added lines come from. Every source ends as ChangedFile[]; git runs through the hardened runner
 * (src/core/git/run.ts: no shell, no repository-configured programs). Options that user config could change
 * (external diff drivers, textconv, colour, prefixes, quoting of non-ASCII paths) are pinned so the parser
 * always sees the same shape.
 */

export const GIT_DIFF = ['-c', 'core.quotePath=false', '-c', 'diff.noprefix=false', 'diff', '--no-color', ...GIT_DIFF_SAFE, '--src-prefix=a/', '--dst-prefix=b/', '-M', '--unified=3'];
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Untracked or listed files larger than this are skipped: generated bundles are not hand-written code. */
export const MAX_WHOLE_FILE_BYTES = 1024 * 1024;

/** `git <args>` in `cwd` through the hardened runner (kept for callers that run their own read-only git command). */
export function git(cwd: string, args: string[], okCodes = [0]): Promise<string> {
  return runGit(cwd, args, { okCodes });
}

/**
 * The work tree root. Walking up to a `.git` entry costs no process (a hook pays ~5-50 ms per git spawn); git
 * itself answers when the layout is unusual (GIT_DIR / GIT_WORK_TREE set, or no `.git` found).
 */
export async function repoRoot(cwd: string): Promise<string> {
  if (!process.env.GIT_DIR && !process.env.GIT_WORK_TREE) {
    for (let d = resolve(cwd); ; d = dirname(d)) {
      if (existsSync(join(d, '.git'))) return d;
      if (dirname(d) === d) break;
    }
  }
  return (await runGit(cwd, ['rev-parse', '--show-toplevel'])).trim();
}

/** `git diff --cached`: exactly what the commit being made adds (on an unborn branch git diffs the empty tree). */
export async function stagedChanges(root: string, signal?: AbortSignal): Promise<ChangedFile[]> {
  // Index against HEAD: no working-tree file is read, so no clean filter can run.
  return parseUnifiedDiff(await runGit(root, [...GIT_DIFF, '--cached', '--'], { signal }));
}

/** Diff from `base` to the working tree; before the first commit HEAD does not exist: everything is added. */
async function diffToWorktree(root: string, base: string, signal?: AbortSignal): Promise<string> {
  try {
    return await runGit(root, [...GIT_DIFF, base, '--'], { worktree: true, signal });
  } catch (err) {
    if (base !== 'HEAD' || signal?.aborted) throw err;
    return runGit(root, [...GIT_DIFF, EMPTY_TREE, '--'], { worktree: true, signal });
  }
}

/** Tracked changes against HEAD (staged and unstaged) plus untracked, not-ignored files as whole-file additions. */
export async function worktreeChanges(root: string, signal?: AbortSignal): Promise<ChangedFile[]> {
  const [diff, untracked] = await Promise.all([diffToWorktree(root, 'HEAD', signal), untrackedFiles(root, signal)]);
  return [...parseUnifiedDiff(diff), ...wholeFiles(root, untracked)];
}

/**
 * Everything the branch would bring relative to `base`: from the merge-base of `base` and HEAD to the working
 * tree (so committed, staged and unstaged work all count), plus untracked files. This is what a reviewer of the
 * eventual pull request would see, including what is not committed yet.
 */
export async function branchChanges(root: string, base: string, signal?: AbortSignal): Promise<ChangedFile[]> {
  if (base.startsWith('-')) throw new K0Error('INVALID_ARGUMENT', `invalid branch name: ${base}`);
  let mergeBase: string;
  try {
    mergeBase = (await runGit(root, ['merge-base', base, 'HEAD'], { signal })).trim();
  } catch (err) {
    if (isK0Error(err) && (err.code === 'INVALID_ARGUMENT' || err.code === 'CANCELLED')) throw err;
    throw new K0Error('GIT_FAILED', `no merge-base between '${base}' and HEAD: ${(err as Error).message}`);
  }
  const [diff, untracked] = await Promise.all([runGit(root, [...GIT_DIFF, mergeBase, '--'], { worktree: true, signal }), untrackedFiles(root, signal)]);
  return [...parseUnifiedDiff(diff), ...wholeFiles(root, untracked)];
}

async function untrackedFiles(root: string, signal?: AbortSignal): Promise<string[]> {
  const out = await runGit(root, ['-c', 'core.quotePath=false', 'ls-files', '--others', '--exclude-standard', '-z'], { signal });
  return out.split('\0').filter(Boolean);
}

/**
 * Whole files as additions (explicit file list, untracked files). Binary and oversized files are skipped, and so
 * is anything that is not a regular file (a FIFO would block the read). A path outside `root` is refused with
 * PATH_OUTSIDE_VAULT; a symlink inside it that leads outside is skipped (links are followed only within the
 * project), so an untracked `x.ts -> /etc/passwd` is never read.
 */
export function wholeFiles(root: string, paths: string[], cwd = root): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const p of paths) {
    const q = toProjectPath(p); // `src\a.ts` from a Windows user names src/a.ts on every OS
    const abs = isAbsolute(q) ? q : resolve(cwd, q);
    const rel = relative(root, abs).split('\\').join('/');
    if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) throw new K0Error('PATH_OUTSIDE_VAULT', `${p} is outside the repository being checked (${root})`);
    if (!isInside(root, abs)) continue;
    let st;
    try {
      st = statSync(abs);
    } catch {
      throw new K0Error('INVALID_ARGUMENT', `no such file: ${p}`);
    }
    if (!st.isFile()) continue;
    const file: ChangedFile = { path: rel, status: 'added', binary: false, added: [], newSideLines: new Map() };
    out.push(file);
    if (st.size > MAX_WHOLE_FILE_BYTES) continue;
    const buf = readFileSync(abs);
    if (buf.subarray(0, 8000).includes(0)) {
      file.binary = true;
      continue;
    }
    const lines = buf.toString('utf8').replace(/^\uFEFF/, '').split('\n');
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    lines.forEach((text, i) => {
      const t = text.endsWith('\r') ? text.slice(0, -1) : text;
      file.added.push({ line: i + 1, text: t });
      file.newSideLines.set(i + 1, t);
    });
  }
  return out;
}

export function joinRepo(root: string, rel: string): string {
  return join(root, rel);
}

/**
 * One file as the editor's on-save check sees it: whether git leaves it untracked (then the whole file is new)
 * and its diff against HEAD (the empty tree before the first commit).
 */
export async function fileChanges(root: string, rel: string): Promise<{ untracked: boolean; diff: string }> {
  const [untracked, diff] = await Promise.all([
    runGit(root, ['-c', 'core.quotePath=false', 'ls-files', '--others', '--exclude-standard', '-z', '--', rel]),
    runGit(root, [...GIT_DIFF, 'HEAD', '--', rel], { worktree: true }).catch(() => runGit(root, [...GIT_DIFF, EMPTY_TREE, '--', rel], { worktree: true })),
  ]);
  return { untracked: untracked.split('\0').some(Boolean), diff };
}
