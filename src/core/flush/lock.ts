import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { K0Error } from '../errors';

/**
 * A cross-process lock for the few milliseconds a flush needs: picking a free file name or the next ADR
 * number, and rewriting superseded notes, must not interleave between two agents. `mkdir` is atomic on every
 * file system we run on; the owner file lets a later process break the lock of one that was killed.
 */
const STALE_MS = 30_000;

export interface LockHandle {
  release(): void;
}

export function acquireFlushLock(k0Dir: string, timeoutMs = 5_000): LockHandle {
  const dir = join(k0Dir, 'flush.lock');
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
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new K0Error('WRITE_CONFLICT', `another flush holds ${dir} for more than ${timeoutMs} ms; nothing was written`);
    }
    sleep(delay);
    delay = Math.min(delay * 2, 50);
  }
}

function isStale(dir: string): boolean {
  try {
    const owner = JSON.parse(readFileSync(join(dir, 'owner'), 'utf8')) as { pid?: number; host?: string; at?: number };
    if (owner.host === hostname() && typeof owner.pid === 'number' && !pidAlive(owner.pid)) return true;
    return typeof owner.at === 'number' && Date.now() - owner.at > STALE_MS;
  } catch {
    // No (or a half-written) owner file: judge by the directory's age, leaving a just-created lock alone.
    try {
      return Date.now() - statSync(dir).mtimeMs > STALE_MS;
    } catch {
      return false; // it vanished: the next mkdir decides
    }
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
