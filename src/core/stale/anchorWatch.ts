import { watch, statSync, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Which anchored files a long-lived host's clean scan must stat. Nothing cheaper than a stat proves a file was not
 * edited (`.git/index` does not move when a working-tree file does; git's own `status` stats every file unless an
 * fsmonitor tells it which moved), so a host that checks again and again asks the kernel to tell it instead: one
 * `fs.watch` (inotify, FSEvents, ReadDirectoryChangesW) per folder holding anchored files. A check then stats only
 * the files named by an event since the last check, plus each watched folder itself (a folder renamed or replaced,
 * e.g. a parent moved, sends its watch no event: its identity is compared instead).
 *
 * It falls back to stat-ing every file: before the watch is set up, after any watcher error or an event without a
 * name, with more than MAX_DIRS folders, and at least every FULL_CHECK_MS (file systems whose edits raise no event:
 * network mounts, edits from another machine). Events are read before each check by letting the event loop poll
 * once: a write that returned before the check has its event queued by then.
 */

const MAX_DIRS = 256;
const FULL_CHECK_MS = 5000;

export class AnchorWatch {
  private readonly watchers: FSWatcher[] = [];
  /** Folder → its device:inode when the watch started. */
  private readonly dirs = new Map<string, string>();
  private readonly byDir = new Map<string, Set<string>>();
  private suspects = new Set<string>();
  private broken = false;
  private lastFull = 0;

  private constructor(private readonly top: string, readonly paths: ReadonlySet<string>) {}

  /** Watches the folders of `paths` (repository-relative); undefined when there are too many or none can be watched. */
  static start(top: string, paths: Iterable<string>): AnchorWatch | undefined {
    const w = new AnchorWatch(top, new Set(paths));
    for (const p of w.paths) {
      const d = dirname(p);
      let set = w.byDir.get(d);
      if (!set) w.byDir.set(d, (set = new Set()));
      set.add(p);
    }
    if (!w.byDir.size || w.byDir.size > MAX_DIRS) return undefined;
    try {
      for (const d of w.byDir.keys()) {
        const abs = join(top, d);
        const id = identity(abs);
        if (!id) {
          // A folder that is gone cannot be watched: every check stats everything.
          w.broken = true;
          continue;
        }
        const watcher = watch(abs, { persistent: false }, (_event, name) => {
          if (!name) w.broken = true;
          else w.suspects.add(d === '.' ? String(name) : `${d}/${String(name)}`);
        });
        watcher.on('error', () => (w.broken = true));
        w.watchers.push(watcher);
        w.dirs.set(d, id);
      }
    } catch {
      w.close();
      return undefined;
    }
    return w;
  }

  /**
   * The paths to stat now ('all' = every one: the caller then stats every one), with the events up to now taken
   * in and forgotten. Call it right before the stats it decides.
   */
  async changed(): Promise<Set<string> | 'all'> {
    // Two turns: called from an I/O callback, one immediate runs before the loop polls again; the nested one
    // runs only after a poll, which reads every event the kernel queued before this call.
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    const suspects = this.suspects;
    this.suspects = new Set();
    const now = Date.now();
    const all = () => {
      this.lastFull = now;
      return 'all' as const;
    };
    if (this.broken || now - this.lastFull > FULL_CHECK_MS) return all();
    for (const [d, id] of this.dirs) if (identity(join(this.top, d)) !== id) return all();
    const out = new Set<string>();
    for (const f of suspects) if (this.paths.has(f)) out.add(f);
    return out;
  }

  close(): void {
    for (const w of this.watchers) w.close();
    this.watchers.length = 0;
    this.broken = true;
  }
}

function identity(abs: string): string | undefined {
  const st = statSync(abs, { throwIfNoEntry: false });
  return st?.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
}
