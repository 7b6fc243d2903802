import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { K0Error } from '../errors';
import { pidAlive } from '../fsutil/atomicWrite';
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
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    try {
      mkdirSync(dir);
      try {
        writeFileSync(join(dir, 'owner'), JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
      } catch {
        // the lock is held even without an owner file; stale detection then falls back to its age
      }
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
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

/** Removes the flush lock when its holder is gone (killed); a live holder's lock is left alone. Never waits. */
export function clearStaleFlushLock(k0Dir: string): void {
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
