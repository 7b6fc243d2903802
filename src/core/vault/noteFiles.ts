import { readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import picomatch from 'picomatch';

/**
 * The one rule for which files are notes. The scanner (index), the guard's rule store, flush's note resolver and
 * the convention sniffer all list notes through here, so they always agree on what a note is:
 *
 * - a note is a regular file named `*.md` / `*.markdown` (any case) whose name does not start with `.` (our
 *   atomic-write temp files are `.x.md.<rand>.tmp`); a folder named `x.md` is a folder like any other;
 * - dot-folders and the folders in IGNORED_DIRS are never walked; `exclude` globs (relative to the walk root) drop
 *   files and whole folders;
 * - symlinks are followed only when their real target is inside `boundary` (the project root; for a bound external
 *   vault, the vault itself). Anything else — a target outside, a FIFO, a socket, a device — is reported in
 *   `skipped` with the reason and never opened. Symlinked folders already covered by the walk, and loops, are
 *   reported once, not walked again;
 * - folders deeper than `maxDepth` are reported, not walked.
 *
 * Cost: one readdir per folder; regular files cost no extra system call unless `stat` is asked for (the guard's
 * one-shot path in a git hook needs none); each symlink costs one realpath and one stat. Loop detection tracks real
 * paths as strings instead of calling realpath per folder: `realpathSync` per level made a chain of depth d cost
 * O(d²) lstat calls per folder — O(d³) per walk (depth 1,000 took 46 s).
 */

export interface NoteFile {
  /** Relative to the walk root, `/`-separated. */
  rel: string;
  abs: string;
  /** Present when the walk was asked for stats (`stat: true`), and always for symlinked notes. */
  stat?: NoteStat;
}

/**
 * The fields of a note's stat the scanner and the rule cache compare. Kept instead of the whole Stats: a walk of
 * 5,000 notes holds them until it ends, and a Stats object is a dozen boxed numbers for V8's young generation to
 * copy in every scavenge (issue 17: GC was 10-15 ms of a clean 5,000-note Node 22 scan).
 */
export interface NoteStat {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
}

const noteStat = (st: Stats): NoteStat => ({ mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, size: st.size, ino: st.ino });

export interface SkippedFile {
  path: string;
  reason: string;
}

export interface ListNotesOptions {
  /** Globs relative to the walk root (picomatch, dot files match); a folder is tested as `rel/`. */
  exclude?: string[];
  /** Symlinks are followed only to targets inside this folder. Default: the walk root. */
  boundary?: string;
  /** Give every file its Stats (one stat each). Default false. */
  stat?: boolean;
  /** Folders nested deeper than this are reported, not walked. Default MAX_NOTE_DEPTH; 0 lists the root only. */
  maxDepth?: number;
}

/** Folders that never hold notes: VCS, dependencies, build output, editor state, our own cache and trash. */
export const IGNORED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules', '.k0maru', '.k0maru-trash', '.obsidian', '.trash', '.hg', '.svn', '.cache', 'dist', 'out', 'target']);

/** Deeper chains are not vaults but accidents or attacks; 128 levels is far beyond any real note tree. */
export const MAX_NOTE_DEPTH = 128;

/** Would a folder of this name be walked for notes? */
export function isNoteFolderName(name: string): boolean {
  return !name.startsWith('.') && !IGNORED_DIRS.has(name);
}

/** Is this a note's file name (`.md` / `.markdown`, not a dot-file)? Says nothing about the file's type. */
export function isNoteFileName(name: string): boolean {
  if (name.startsWith('.')) return false;
  const lower = name.toLowerCase();
  return lower.endsWith('.md') || lower.endsWith('.markdown');
}

/** Is `child` the folder `parent` or below it? String work only: both must already be real (or resolved) paths. */
export function isInsidePath(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/**
 * Why a symlink's real target may not be followed, or undefined when it may. Inside the boundary is not enough: a
 * cloned repository's `wiki/x.md -> ../../.git/config` (remote URLs can hold tokens) or `-> ../../.env` stays inside
 * the project. So the target must also be a path the walk itself could list — no dot-folder, ignored folder or
 * dot-file on the way — counted from the walk root when the target is under it, else from the boundary.
 */
export function linkRefusal(real: string, rootReal: string, boundaryReal: string, isDir: boolean): string | undefined {
  const base = isInsidePath(real, rootReal) ? rootReal : isInsidePath(real, boundaryReal) ? boundaryReal : undefined;
  if (base === undefined) return 'points outside the project';
  const segs = real.slice(base.length).split(sep).filter(Boolean);
  if (segs.some((seg, i) => seg.startsWith('.') || ((isDir || i < segs.length - 1) && IGNORED_DIRS.has(seg)))) return 'points into a hidden or ignored folder or file';
  return undefined;
}

function errCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

interface Frame {
  abs: string;
  rel: string;
  /** The folder's real path, derived from its parent's (no realpath call per level). */
  real: string;
  depth: number;
  parent: Frame | undefined;
}

/** Lists the notes under `root` (see the module comment for the rule). Sorted by `rel`. */
export function listNoteFiles(root: string, opts: ListNotesOptions = {}): { files: NoteFile[]; skipped: SkippedFile[] } {
  const files: NoteFile[] = [];
  const skipped: SkippedFile[] = [];
  const isExcluded = opts.exclude?.length ? picomatch(opts.exclude, { dot: true }) : null;
  const maxDepth = opts.maxDepth ?? MAX_NOTE_DEPTH;
  let rootReal: string;
  try {
    rootReal = realpathSync.native(root);
  } catch (err) {
    skipped.push({ path: '.', reason: `unreadable folder (${errCode(err)})` });
    return { files, skipped };
  }
  let boundaryReal = rootReal;
  if (opts.boundary !== undefined) {
    try {
      boundaryReal = realpathSync.native(opts.boundary);
    } catch {
      // An unreadable boundary admits nothing outside the walk root.
    }
  }
  /** Real paths of symlinked folders already walked (each target at most once). */
  const followed = new Set<string>();
  // Normalised once, so the hand-joined paths below are exactly what path.join would give.
  const stack: Frame[] = [{ abs: join(root), rel: '', real: rootReal, depth: 0, parent: undefined }];

  const enterLinkedFolder = (parent: Frame, abs: string, rel: string, real: string): void => {
    for (let f: Frame | undefined = parent; f; f = f.parent) {
      if (isInsidePath(f.real, real)) return void skipped.push({ path: rel, reason: 'symlink loop (points to a folder above it)' });
    }
    if (isInsidePath(real, rootReal) || followed.has(real)) {
      return void skipped.push({ path: rel, reason: 'symlink to a folder that is already walked (its notes are listed at their real path)' });
    }
    followed.add(real);
    stack.push({ abs, rel, real, depth: parent.depth + 1, parent });
  };

  while (stack.length) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir.abs, { withFileTypes: true });
    } catch (err) {
      skipped.push({ path: dir.rel || '.', reason: `unreadable folder (${errCode(err)})` });
      continue;
    }
    // Sorted, so which of two symlinks to one folder is walked (and which reported) never depends on readdir order.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // A folder's path and an entry's name (never a separator in it) joined by hand: path.join re-normalises the
    // whole string for each of thousands of files, a visible share of a clean scan (issue 17).
    const absPrefix = dir.abs === '.' || dir.abs === `.${sep}` ? '' : dir.abs.endsWith(sep) ? dir.abs : dir.abs + sep;
    for (const e of entries) {
      const name = e.name;
      const rel = dir.rel ? `${dir.rel}/${name}` : name;
      const abs = absPrefix + name;
      if (e.isDirectory()) {
        if (!isNoteFolderName(name) || isExcluded?.(rel + '/')) continue;
        if (dir.depth + 1 > maxDepth) {
          if (maxDepth > 0) skipped.push({ path: rel, reason: `folder nested deeper than ${maxDepth} levels (not walked)` });
          continue;
        }
        stack.push({ abs, rel, real: dir.real.endsWith(sep) ? dir.real + name : dir.real + sep + name, depth: dir.depth + 1, parent: dir });
        continue;
      }
      const isNote = isNoteFileName(name);
      if (e.isSymbolicLink()) {
        if (name.startsWith('.') || IGNORED_DIRS.has(name)) continue;
        let real: string;
        let st: Stats;
        try {
          real = realpathSync.native(abs);
          st = statSync(real);
        } catch (err) {
          if (isNote) skipped.push({ path: rel, reason: `broken symlink (${errCode(err)})` });
          continue;
        }
        if (st.isDirectory()) {
          if (isExcluded?.(rel + '/')) continue;
          const why = linkRefusal(real, rootReal, boundaryReal, true);
          if (why) {
            skipped.push({ path: rel, reason: `symlinked folder ${why} (not followed)` });
            continue;
          }
          if (dir.depth + 1 > maxDepth) {
            if (maxDepth > 0) skipped.push({ path: rel, reason: `folder nested deeper than ${maxDepth} levels (not walked)` });
            continue;
          }
          enterLinkedFolder(dir, abs, rel, real);
          continue;
        }
        if (!isNote || isExcluded?.(rel)) continue;
        const why = linkRefusal(real, rootReal, boundaryReal, false);
        if (why) {
          skipped.push({ path: rel, reason: `symlink ${why} (not followed)` });
          continue;
        }
        if (!st.isFile()) {
          skipped.push({ path: rel, reason: `symlink to ${kindOf(st)} (never opened)` });
          continue;
        }
        files.push({ rel, abs, stat: noteStat(st) });
        continue;
      }
      if (!isNote || isExcluded?.(rel)) continue;
      if (!e.isFile()) {
        skipped.push({ path: rel, reason: e.isFIFO() ? 'a FIFO (never opened)' : 'not a regular file' });
        continue;
      }
      if (!opts.stat) {
        files.push({ rel, abs });
        continue;
      }
      try {
        files.push({ rel, abs, stat: noteStat(statSync(abs)) });
      } catch (err) {
        skipped.push({ path: rel, reason: `cannot stat (${errCode(err)})` });
      }
    }
  }
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return { files, skipped };
}
