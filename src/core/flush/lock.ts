import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { K0Error } from '../errors';
import { pidAlive } from '../fsutil/atomicWrite';
import { faultPoint } from '../fsutil/fault';
import { LOCK_DIR } from './pending';

/**
 * A cross-process lock for the few milliseconds a flush needs: picking a free file name or the next ADR
 * number, and rewriting superseded notes, must not interleave between two agents. `mkdir` is atomic on every
 * file system we run on; the owner file lets a later process break the lock of one that was killed.
 */
const STALE_MS = 30_000;
/**
 * A live process writes its owner file microseconds after its mkdir. A lock directory without one (or with a torn
 * one) for longer than this belongs to a process killed in between: taken over rather than waited out for 30 s.
 */
export const OWNERLESS_GRACE_MS = 1_000;

export interface LockHandle {
  release(): void;
}

export function acquireFlushLock(k0Dir: string, timeoutMs = 5_000): LockHandle {
  const dir = join(k0Dir, LOCK_DIR);
  mkdirSync(k0Dir, { recursive: true });
  clearOrphanLockParts(k0Dir);
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    if (takeLock(dir)) {
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          // Renamed away whole before it is removed: emptied in place, the folder could be taken over by another
          // process's rename (rename(2) replaces an empty folder) and our rmdir would then fail on its lock.
          const grave = `${dir}.stale-${process.pid}-${Date.now()}`;
          try {
            renameSync(dir, grave);
          } catch {
            return; // already gone (broken as stale)
          }
          rmSync(grave, { recursive: true, force: true });
        },
      };
    }
    if (isStale(dir)) {
      breakLock(dir);
      continue;
    }
    if (Date.now() > deadline) {
      throw new K0Error('WRITE_CONFLICT', `another flush holds ${dir} for more than ${timeoutMs} ms; nothing was written`);
    }
    sleep(delay);
    delay = Math.min(delay * 2, 50);
  }
}

/** Prefix of the private folder a lock is built in before it is renamed into place. */
const PART = `${LOCK_DIR}.new-`;

/**
 * The lock appears under its name with its owner file already inside: it is built in a private folder named after
 * this process and renamed into place. A kill can no longer leave a lock without an owner (which every other
 * process had to respect for OWNERLESS_GRACE_MS); what it can leave is the private folder, whose pid in the name
 * says when it is an orphan. rename(2) onto a folder that holds an owner file fails, so two takers cannot both win.
 */
function takeLock(dir: string): boolean {
  const part = join(dirname(dir), `${PART}${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(part);
  try {
    writeFileSync(join(part, 'owner'), JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
    faultPoint('flush', 'lock-take');
    renameSync(part, dir);
    return true;
  } catch (err) {
    rmSync(part, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') return false;
    throw err;
  }
}

/** Removes private lock folders and moved-aside locks (`flush.lock.new-<pid>-…`, `flush.lock.stale-<pid>-…`) whose process is gone. */
function clearOrphanLockParts(k0Dir: string): void {
  let names: string[];
  try {
    names = readdirSync(k0Dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^flush\.lock\.(?:new|stale)-(\d+)-/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || pidAlive(pid)) continue;
    rmSync(join(k0Dir, name), { recursive: true, force: true });
  }
}

/** Removes the flush lock when its holder is gone (killed); a live holder's lock is left alone. Never waits. */
export function clearStaleFlushLock(k0Dir: string): void {
  clearOrphanLockParts(k0Dir);
  const dir = join(k0Dir, LOCK_DIR);
  if (existsSync(dir) && isStale(dir)) breakLock(dir);
}

/**
 * Two processes may judge the same dead lock stale at once; removing it in place would let the slower one delete
 * the lock the faster one has just taken. Renaming it to a unique name first means only one of them moves it, and
 * the mover checks it moved the lock it judged (same inode) — otherwise it puts the live one back.
 */
function breakLock(dir: string): void {
  let ino: number;
  try {
    ino = statSync(dir).ino;
  } catch {
    return;
  }
  const grave = `${dir}.stale-${process.pid}-${Date.now()}`;
  try {
    renameSync(dir, grave);
  } catch {
    return; // someone else moved or released it: the next mkdir decides
  }
  let movedIno = -1;
  try {
    movedIno = statSync(grave).ino;
  } catch {
    // vanished
  }
  if (movedIno !== ino || !isStale(grave)) {
    try {
      renameSync(grave, dir); // a live lock: hand it back
      return;
    } catch {
      // the name was taken again meanwhile; the moved lock's owner will find its directory gone and still release
    }
  }
  rmSync(grave, { recursive: true, force: true });
}

function isStale(dir: string): boolean {
  let owner: { pid?: number; host?: string; at?: number } | undefined;
  try {
    owner = JSON.parse(readFileSync(join(dir, 'owner'), 'utf8')) as typeof owner;
  } catch {
    owner = undefined;
  }
  if (owner && typeof owner === 'object' && typeof owner.at === 'number') {
    if (owner.host === hostname() && typeof owner.pid === 'number' && !pidAlive(owner.pid)) return true;
    return Date.now() - owner.at > STALE_MS;
  }
  // No (or a half-written) owner file: its writer died between mkdir and the write unless the lock is brand new.
  try {
    return Date.now() - statSync(dir).mtimeMs > OWNERLESS_GRACE_MS;
  } catch {
    return false; // it vanished: the next mkdir decides
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
