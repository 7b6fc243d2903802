import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { K0Error } from '../errors';
import { parseUnifiedDiff } from './diffParser';
import type { ChangedFile } from './types';

/**
 * Where the added lines come from. Every source ends as ChangedFile[]; real `git` is run with execFile (no
 * shell). Options that user config could change (external diff drivers, colour, prefixes, quoting of
 * non-ASCII paths) are pinned so the parser always sees the same shape.
 */

const GIT_DIFF = ['-c', 'core.quotePath=false', '-c', 'diff.noprefix=false', 'diff', '--no-color', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', '-M', '--unified=3'];
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Untracked or listed files larger than this are skipped: generated bundles are not hand-written code. */
export const MAX_WHOLE_FILE_BYTES = 1024 * 1024;

export function git(cwd: string, args: string[], okCodes = [0]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : -1) : 0;
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(new K0Error('GIT_FAILED', 'git is not installed or not on PATH'));
      if (!okCodes.includes(code)) {
        if (/not a git repository/i.test(stderr)) return reject(new K0Error('NOT_A_GIT_REPO', `${cwd} is not inside a git repository`));
        return reject(new K0Error('GIT_FAILED', `git ${args.filter((a) => !a.startsWith('-c') && !a.includes('=')).join(' ')}: ${stderr.trim() || (err as Error).message}`));
      }
      resolvePromise(stdout);
    });
  });
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
  return (await git(cwd, ['rev-parse', '--show-toplevel'])).trim();
}

/** `git diff --cached`: exactly what the commit being made adds (on an unborn branch git diffs the empty tree). */
export async function stagedChanges(root: string): Promise<ChangedFile[]> {
  return parseUnifiedDiff(await git(root, [...GIT_DIFF, '--cached', '--']));
}

/** Diff from `base` to the working tree; before the first commit HEAD does not exist: everything is added. */
async function diffToWorktree(root: string, base: string): Promise<string> {
  try {
    return await git(root, [...GIT_DIFF, base, '--']);
  } catch (err) {
    if (base !== 'HEAD') throw err;
    return git(root, [...GIT_DIFF, EMPTY_TREE, '--']);
  }
}

/** Tracked changes against HEAD (staged and unstaged) plus untracked, not-ignored files as whole-file additions. */
export async function worktreeChanges(root: string): Promise<ChangedFile[]> {
  const [diff, untracked] = await Promise.all([diffToWorktree(root, 'HEAD'), untrackedFiles(root)]);
  return [...parseUnifiedDiff(diff), ...wholeFiles(root, untracked)];
}

/**
 * Everything the branch would bring relative to `base`: from the merge-base of `base` and HEAD to the working
 * tree (so committed, staged and unstaged work all count), plus untracked files. This is what a reviewer of the
 * eventual pull request would see, including what is not committed yet.
 */
export async function branchChanges(root: string, base: string): Promise<ChangedFile[]> {
  if (base.startsWith('-')) throw new K0Error('INVALID_ARGUMENT', `invalid branch name: ${base}`);
  let mergeBase: string;
  try {
    mergeBase = (await git(root, ['merge-base', base, 'HEAD'])).trim();
  } catch (err) {
    throw new K0Error('GIT_FAILED', `no merge-base between '${base}' and HEAD: ${(err as Error).message}`);
  }
  const [diff, untracked] = await Promise.all([git(root, [...GIT_DIFF, mergeBase, '--']), untrackedFiles(root)]);
  return [...parseUnifiedDiff(diff), ...wholeFiles(root, untracked)];
}

async function untrackedFiles(root: string): Promise<string[]> {
  const out = await git(root, ['-c', 'core.quotePath=false', 'ls-files', '--others', '--exclude-standard', '-z']);
  return out.split('\0').filter(Boolean);
}

/** Whole files as additions (explicit file list, untracked files). Binary and oversized files are skipped. */
export function wholeFiles(root: string, paths: string[], cwd = root): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const p of paths) {
    const abs = isAbsolute(p) ? p : resolve(cwd, p);
    const rel = relative(root, abs).split('\\').join('/');
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
