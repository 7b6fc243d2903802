import { existsSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { isInside } from '../core/guard/confine';
import { fileChanges, repoRoot } from '../core/guard/diffSource';

/**
 * What the guard should audit for one file the editor opened or saved, in the shape `guardCheck` takes: the
 * lines this file adds relative to HEAD (as the pre-commit hook sees them), the whole file when git does not
 * track it yet (untracked, or no repository at all), nothing when it is unchanged or ignored. `root` is the
 * folder the paths are relative to (the repository's top level); violations come back relative to it.
 * No vscode here: this runs inside the lazily loaded core bundle.
 */
export type GuardSource =
  | { kind: 'diff'; root: string; diff: string }
  | { kind: 'files'; root: string; files: string[] }
  | { kind: 'none'; root: string };

export async function guardSourceForFile(workspaceRoot: string, absPath: string): Promise<GuardSource> {
  let root: string;
  try {
    // The repository nearest the file (a nested repository or submodule has its own HEAD).
    root = await repoRoot(dirname(absPath));
  } catch {
    // Not a repository (or no git): every line of the file is new — for files of the workspace only.
    if (!isInside(workspaceRoot, absPath)) return { kind: 'none', root: workspaceRoot };
    return existsSync(absPath) ? { kind: 'files', root: workspaceRoot, files: [absPath] } : { kind: 'none', root: workspaceRoot };
  }
  const rel = relative(root, absPath).split('\\').join('/');
  if (!rel || rel.startsWith('..')) return { kind: 'none', root };
  // The same pinned, hardened git calls as the hook's diff source (src/core/git/run.ts).
  const { untracked, diff } = await fileChanges(root, rel);
  if (untracked) return { kind: 'files', root, files: [absPath] };
  if (diff.trim()) return { kind: 'diff', root, diff };
  return { kind: 'none', root };
}
