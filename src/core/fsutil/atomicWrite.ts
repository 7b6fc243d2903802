import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { crypto } from './lazyBuiltin';
import { basename, dirname, join } from 'node:path';

/**
 * Our temp files are `.<target name>.k0-<pid>-<12 hex>.tmp`: a dot-file (the scanner skips those), named after the
 * process that wrote it so a later process can tell an orphan (its writer is dead) from a write in progress.
 * Older versions wrote `.<target name>.<12 hex>.tmp`; those are recognised too.
 */
const TEMP_RE = /^\..+\.k0-(\d+)-[0-9a-f]{12}\.tmp$/;
const LEGACY_TEMP_RE = /^\..+\.[0-9a-f]{12}\.tmp$/;

/** A fresh temp path beside `target` (nothing is created). */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.k0-${process.pid}-${crypto().randomBytes(6).toString('hex')}.tmp`);
}

export function isOurTempName(name: string): boolean {
  return TEMP_RE.test(name) || LEGACY_TEMP_RE.test(name);
}

/** Writes `data` to `path`, which must not exist yet, and fsyncs it (unless `sync` is false); a failure leaves nothing behind. */
export function writeNewFileSynced(path: string, data: string | Uint8Array, sync = true): void {
  const fd = openSync(path, 'wx', 0o644);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    if (sync) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw err;
  }
  closeSync(fd);
}

/**
 * Writes `data` to a new, fsynced temp file beside `target` and returns its path. The building block of every
 * atomic write: the caller renames or links it into place.
 */
export function writeTempSibling(target: string, data: string | Uint8Array): string {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = tempPathFor(target);
  writeNewFileSynced(tmp, data);
  return tmp;
}

/**
 * Makes a rename, link or unlink inside `dir` durable. POSIX only: Windows cannot open a directory for fsync (and
 * its renames are journaled by NTFS), so a failure here is ignored.
 */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported on this platform / file system
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes a file so that readers see either the old bytes or the new bytes, never a half-written file:
 * write a sibling temp file, fsync it, rename over the target. A process killed mid-write leaves at most
 * a temp file behind, which `sweepStaleTemps` removes later.
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

export interface SweepOptions {
  /** A temp whose writer is dead is removed once it is this old (a guard against pid reuse races). Default 5 s. */
  deadOwnerAgeMs?: number;
  /** Any temp of ours this old is removed whoever wrote it (a writer holds one for milliseconds). Default 1 h. */
  maxAgeMs?: number;
  now?: number;
}

/**
 * Removes our orphaned temp files from one folder (not recursive): those whose writing process is gone, and any
 * older than an hour (a pid can be reused; a legacy name carries none). Never touches a name outside our pattern.
 * Returns the names removed.
 */
export function sweepStaleTemps(dir: string, opts: SweepOptions = {}): string[] {
  const now = opts.now ?? Date.now();
  const deadAge = opts.deadOwnerAgeMs ?? 5_000;
  const maxAge = opts.maxAgeMs ?? 3_600_000;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.tmp') || !name.startsWith('.')) continue;
    const m = TEMP_RE.exec(name);
    if (!m && !LEGACY_TEMP_RE.test(name)) continue;
    const abs = join(dir, name);
    let age: number;
    try {
      const st = statSync(abs);
      if (!st.isFile()) continue;
      age = now - st.mtimeMs;
    } catch {
      continue;
    }
    const pid = m ? Number(m[1]) : undefined;
    const orphan = pid !== undefined && pid !== process.pid && !pidAlive(pid) && age >= deadAge;
    if (orphan || age >= maxAge) {
      rmSync(abs, { force: true });
      removed.push(name);
    }
  }
  return removed;
}

/** True when a process with this id exists on this machine (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
