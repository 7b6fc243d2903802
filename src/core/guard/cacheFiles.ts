import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

// How the guard's caches under `.k0maru/cache/` (the rule cache, the scope-file listing) are written.

/**
 * `.k0maru/.gitignore` (written by `k0maru init`) already ignores `cache/`; a project set up by hand may have no
 * such line, so the folder ignores itself too (`*`), and the cache never shows up in `git status` or a commit.
 */
export function ignoreInGit(dir: string): void {
  try {
    const fd = openSync(join(dir, '.gitignore'), 'wx', 0o644);
    try {
      writeSync(fd, '# k0maru: caches rebuilt by every run; never commit them.\n*\n');
    } finally {
      closeSync(fd);
    }
  } catch {
    // already there (EEXIST), or not writable: the save below fails the same way and is skipped
  }
}

/**
 * Temp file + rename, so a reader sees the old file or the new one. Not fsynced: after a crash the worst case is
 * an empty or torn file, which reads as corrupt and is rebuilt. Not src/core/fsutil/atomicWrite.ts either: its
 * temp names need node:crypto, and importing node:crypto as an ES module costs ~12 ms of CPU (Node builds its
 * whole namespace, WebCrypto included) on every hook run. The temp name follows atomicWrite's pattern
 * (`.<name>.k0-<pid>-<12 hex>.tmp`), so its sweep of orphaned temps recognises ours.
 */
export function replaceFile(path: string, text: string): void {
  const hex = Array.from({ length: 12 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const tmp = join(dirname(path), `.${basename(path)}.k0-${process.pid}-${hex}.tmp`);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    const buf = Buffer.from(text, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
