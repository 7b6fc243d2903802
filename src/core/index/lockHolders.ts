import { readdirSync, readlinkSync, realpathSync } from 'node:fs';

/**
 * Could a live handle other than ours hold the index lock? True when another process has the index file open, or
 * this process has it open more than once (a second handle of ours may be the holder). node-sqlite3-wasm opens the database file before it takes
 * its `.lock` directory and removes the directory before it closes the file, so a lock directory with no process
 * holding the file is one a killed process left behind — it can be removed at once instead of after STALE_LOCK_MS.
 *
 * Linux only (it reads /proc/<pid>/fd): elsewhere the answer is `undefined` and the caller keeps the age rule.
 * Processes whose fd table we may not read (another user's) are not counted: an index lives in the user's own
 * project, and a foreign process that holds it is the case the age rule still covers. When /proc itself cannot be
 * listed the answer is `undefined` too — never "nobody holds it" on a guess.
 */
export function anotherHandleMayHoldFile(path: string): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  let target: string;
  let pids: string[];
  try {
    target = realpathSync.native(path);
    pids = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const self = String(process.pid);
  let ownHandles = 0;
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone meanwhile, or another user's process
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) !== target) continue;
        if (pid !== self || ++ownHandles > 1) return true;
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return false;
}
