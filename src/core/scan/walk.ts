import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';

export interface WalkEntry {
  /** Relative to the walk root, '/' separators. */
  rel: string;
  abs: string;
  stat: Stats;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

/** Folders that never hold notes: VCS, dependencies, editor state, and our own cache. */
const IGNORED_DIRS = new Set(['.git', 'node_modules', '.k0maru', '.obsidian', '.trash', '.hg', '.svn', '.cache', 'dist', 'out', 'target']);

export interface WalkOptions {
  exclude?: string[];
}

/**
 * Lists Markdown files under `root` with one stat each. Directory symlinks are followed once (a loop is reported,
 * not followed again); dot-folders and the folders above are ignored; temp files of atomic writes are skipped.
 */
export function walkMarkdown(root: string, opts: WalkOptions = {}): { files: WalkEntry[]; skipped: SkippedFile[] } {
  const files: WalkEntry[] = [];
  const skipped: SkippedFile[] = [];
  const isExcluded = opts.exclude?.length ? picomatch(opts.exclude, { dot: true }) : null;
  const seenDirs = new Set<string>();

  const visit = (dirAbs: string, dirRel: string) => {
    let real: string;
    try {
      real = realpathSync(dirAbs);
    } catch (err) {
      skipped.push({ path: dirRel || '.', reason: `unreadable folder (${(err as NodeJS.ErrnoException).code})` });
      return;
    }
    if (seenDirs.has(real)) {
      skipped.push({ path: dirRel, reason: 'symlink loop (folder already visited)' });
      return;
    }
    seenDirs.add(real);
    let entries;
    try {
      entries = readdirSync(dirAbs, { withFileTypes: true });
    } catch (err) {
      skipped.push({ path: dirRel || '.', reason: `unreadable folder (${(err as NodeJS.ErrnoException).code})` });
      return;
    }
    for (const e of entries) {
      const name = e.name;
      const rel = dirRel ? `${dirRel}/${name}` : name;
      const abs = join(dirAbs, name);
      if (e.isDirectory()) {
        if (name.startsWith('.') || IGNORED_DIRS.has(name)) continue;
        if (isExcluded?.(rel + '/')) continue;
        visit(abs, rel);
        continue;
      }
      const lower = name.toLowerCase();
      const isMd = lower.endsWith('.md') || lower.endsWith('.markdown');
      if (e.isSymbolicLink()) {
        let st: Stats;
        try {
          st = statSync(abs);
        } catch (err) {
          if (isMd) skipped.push({ path: rel, reason: `broken symlink (${(err as NodeJS.ErrnoException).code})` });
          continue;
        }
        if (st.isDirectory()) {
          if (!name.startsWith('.') && !IGNORED_DIRS.has(name) && !isExcluded?.(rel + '/')) visit(abs, rel);
          continue;
        }
        if (isMd && !isExcluded?.(rel)) files.push({ rel, abs, stat: st });
        continue;
      }
      if (!isMd || name.startsWith('.')) continue; // dot-files include our `.x.md.<rand>.tmp` atomic-write files
      if (isExcluded?.(rel)) continue;
      if (!e.isFile()) {
        skipped.push({ path: rel, reason: 'not a regular file' });
        continue;
      }
      let st: Stats;
      try {
        st = statSync(abs);
      } catch (err) {
        skipped.push({ path: rel, reason: `cannot stat (${(err as NodeJS.ErrnoException).code})` });
        continue;
      }
      files.push({ rel, abs, stat: st });
    }
  };
  visit(root, '');
  return { files, skipped };
}
