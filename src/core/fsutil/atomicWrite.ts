import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to a new, fsynced temp file beside `target` (`.<name>.<random>.tmp`, which the scanner ignores)
 * and returns its path. The building block of every atomic write: the caller renames or links it into place.
 */
export function writeTempSibling(target: string, data: string | Uint8Array): string {
  const dir = dirname(target);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  return tmp;
}

/**
 * Writes a file so that readers see either the old bytes or the new bytes, never a half-written file:
 * write a sibling temp file, fsync it, rename over the target. A process killed mid-write leaves at most
 * a temp file behind.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const tmp = writeTempSibling(path, data);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Creates a file only if nothing is at `path` yet, atomically (a hard link fails with EEXIST when the name is
 * taken). Returns false when someone else created it first.
 */
export function createFileExclusive(path: string, data: string): boolean {
  const tmp = writeTempSibling(path, data);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}
