import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * Where a project's git repository is and which commit HEAD names, read from the files git keeps (`.git` or a
 * `gitdir:` file for worktrees and submodules, `HEAD`, loose refs, `packed-refs`) without spawning git: a clean
 * scan asks this on every run, and a spawn costs more than the rest of the staleness check.
 */

export interface RepoLocation {
  /** The working tree's top folder (where `.git` is). */
  top: string;
  /** The repository's git directory for this working tree (`.git`, or `.git/worktrees/<name>` for a worktree). */
  gitDir: string;
  /** Where refs and objects live (differs from gitDir for a linked worktree: its `commondir`). */
  commonDir: string;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readText(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

/** The repository that contains `start` (walking up), or undefined outside any repository. */
export function locateRepo(start: string): RepoLocation | undefined {
  for (let d = resolve(start); ; d = dirname(d)) {
    const dotGit = join(d, '.git');
    let gitDir: string | undefined;
    if (isDir(dotGit)) gitDir = dotGit;
    else {
      const file = readText(dotGit);
      const m = file && /^gitdir:\s*(.+?)\s*$/m.exec(file);
      if (m) gitDir = isAbsolute(m[1]) ? m[1] : resolve(d, m[1]);
    }
    if (gitDir && readText(join(gitDir, 'HEAD')) !== undefined) {
      const common = readText(join(gitDir, 'commondir'))?.trim();
      const commonDir = common ? (isAbsolute(common) ? common : resolve(gitDir, common)) : gitDir;
      return { top: d, gitDir, commonDir };
    }
    if (dirname(d) === d) return undefined;
  }
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The commit HEAD names: a detached HEAD's hash, or its branch's ref (loose, then packed-refs). '' for an unborn
 * branch (a repository without commits). Symbolic chains are followed a few steps (refs pointing at refs).
 */
export function readHead(repo: RepoLocation): string {
  let content = readText(join(repo.gitDir, 'HEAD'))?.trim() ?? '';
  for (let hop = 0; hop < 5; hop++) {
    if (SHA.test(content)) return content;
    const m = /^ref:\s*(\S+)$/.exec(content);
    if (!m) return '';
    const ref = m[1];
    // Per-worktree refs (HEAD, refs/bisect, refs/worktree) live in gitDir; branches live in the common dir.
    const loose = readText(join(repo.gitDir, ref)) ?? readText(join(repo.commonDir, ref));
    if (loose !== undefined) {
      content = loose.trim();
      continue;
    }
    return packedRef(repo.commonDir, ref);
  }
  return '';
}

function packedRef(commonDir: string, ref: string): string {
  const packed = readText(join(commonDir, 'packed-refs'));
  if (!packed) return '';
  for (const line of packed.split('\n')) {
    if (line.endsWith(` ${ref}`)) {
      const sha = line.slice(0, line.indexOf(' '));
      if (SHA.test(sha)) return sha;
    }
  }
  return '';
}

/** Is a shallow clone (some history is missing: bases may be absent, never a reason to call a note stale). */
export function isShallow(repo: RepoLocation): boolean {
  return readText(join(repo.commonDir, 'shallow')) !== undefined;
}

/**
 * The commits a shallow clone was cut at. Their parents are missing, so git shows every file as added there: a
 * note whose last change is one of them has no known base (unknown), not that commit as its base.
 */
export function shallowBoundary(repo: RepoLocation): Set<string> {
  return new Set((readText(join(repo.commonDir, 'shallow')) ?? '').split('\n').map((l) => l.trim()).filter(Boolean));
}
