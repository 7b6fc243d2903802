import { existsSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { git, repoRoot } from '../core/guard/diffSource';

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

// Pinned like the hook's diff source: user config (external drivers, colour, prefixes, path quoting) must not
// change what the parser sees.
const DIFF = ['-c', 'core.quotePath=false', '-c', 'diff.noprefix=false', 'diff', '--no-color', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', '-M', '--unified=3'];
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export async function guardSourceForFile(workspaceRoot: string, absPath: string): Promise<GuardSource> {
  let root: string;
  try {
    // The repository nearest the file (a nested repository or submodule has its own HEAD).
    root = await repoRoot(dirname(absPath));
  } catch {
    // Not a repository (or no git): every line of the file is new.
    return existsSync(absPath) ? { kind: 'files', root: workspaceRoot, files: [absPath] } : { kind: 'none', root: workspaceRoot };
  }
  const rel = relative(root, absPath).split('\\').join('/');
  if (!rel || rel.startsWith('..')) return { kind: 'none', root };
  const [untracked, diff] = await Promise.all([
    git(root, ['-c', 'core.quotePath=false', 'ls-files', '--others', '--exclude-standard', '-z', '--', rel]),
    git(root, [...DIFF, 'HEAD', '--', rel]).catch(() => git(root, [...DIFF, EMPTY_TREE, '--', rel])),
  ]);
  if (untracked.split('\0').some(Boolean)) return { kind: 'files', root, files: [absPath] };
  if (diff.trim()) return { kind: 'diff', root, diff };
  return { kind: 'none', root };
}
