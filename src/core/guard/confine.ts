import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { K0Error } from '../errors';

/**
 * Keeps the guard inside the project. A path is inside when its real location (symlinks followed, as far as the
 * path exists) is the folder itself or below it, so `../../etc/passwd`, `/etc/passwd` and a link to either are
 * all outside.
 */

/** The real path of `p`, or of its deepest existing ancestor joined with the rest (a path that does not exist yet). */
export function realish(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = resolve(abs, '..');
    if (parent === abs) return abs;
    return resolve(realish(parent), relative(parent, abs));
  }
}

export function isInside(root: string, p: string): boolean {
  const rel = relative(realish(root), realish(p));
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + sep) && !isAbsolute(rel));
}

/** Throws PATH_OUTSIDE_VAULT when `p` (relative to `cwd`) leaves `root`. `what` names the argument in the message. */
export function assertInside(root: string, p: string, what: string, cwd = root): string {
  if (p.includes('\0')) throw new K0Error('PATH_OUTSIDE_VAULT', `${what} contains a NUL byte`);
  const abs = resolve(cwd, p);
  if (!isInside(root, abs)) throw new K0Error('PATH_OUTSIDE_VAULT', `${what} ${JSON.stringify(p)} is outside the project (${root}); the guard reads only the project's files`, { path: p });
  return abs;
}

/**
 * Checks what a caller named before anything is read or run: `repoPath` must be a folder (a file is a coded
 * error, never `spawn ENOTDIR`) and, with `confineTo`, inside it; so must every listed file.
 */
export function checkRequestPaths(opts: { cwd: string; repoPath?: string; files?: string[]; confineTo?: string }): void {
  const { cwd, confineTo } = opts;
  if (opts.repoPath !== undefined) {
    const abs = confineTo ? assertInside(confineTo, opts.repoPath, 'repo_path', cwd) : resolve(cwd, opts.repoPath);
    let st;
    try {
      st = statSync(abs);
    } catch {
      throw new K0Error('INVALID_ARGUMENT', `repo_path ${JSON.stringify(opts.repoPath)} does not exist`);
    }
    if (!st.isDirectory()) throw new K0Error('INVALID_ARGUMENT', `repo_path ${JSON.stringify(opts.repoPath)} is not a folder`);
  }
  for (const f of confineTo ? (opts.files ?? []) : []) {
    const abs = assertInside(confineTo!, f, 'file', cwd);
    // Git's own folder is not project source (its config may hold credentials in remote URLs).
    if (relative(realish(confineTo!), realish(abs)).split(sep).includes('.git')) throw new K0Error('INVALID_ARGUMENT', `file ${JSON.stringify(f)} is inside a .git folder, not a project file`);
  }
}
