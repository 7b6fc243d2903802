import { existsSync, watch, type FSWatcher } from 'node:fs';

/**
 * A folder watcher that survives the folder not being there: `.k0maru/refs/` appears with the first offload and
 * a wiki folder can be deleted and recreated. While the folder is missing (or the watch broke) it retries
 * every `retryMs`; once attached, a burst of changes becomes one call after `debounceMs`.
 */
export interface FolderWatch {
  close(): void;
}

export interface FolderWatchOptions {
  dir: string;
  recursive?: boolean;
  /** Which changed names matter (relative to `dir`; undefined when the platform did not say). */
  filter(name: string | undefined): boolean;
  onChange(): void;
  debounceMs?: number;
  retryMs?: number;
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

export function watchFolder(opts: FolderWatchOptions): FolderWatch {
  const debounceMs = opts.debounceMs ?? 150;
  const retryMs = opts.retryMs ?? 1000;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  let recursive = opts.recursive ?? false;
  let missed = false;

  const fire = () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => !closed && opts.onChange(), debounceMs);
  };

  const scheduleRetry = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      attach();
    }, retryMs);
    // A retry timer must not keep a finished process alive.
    retry.unref();
  };

  const attach = () => {
    if (closed) return;
    if (!existsSync(opts.dir)) {
      missed = true;
      return scheduleRetry();
    }
    try {
      watcher = watch(opts.dir, { recursive, persistent: false }, (_event, name) => {
        if (opts.filter(name === null ? undefined : String(name))) fire();
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (recursive && code === 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM') {
        // Old platforms without recursive watching: top-level changes still arrive.
        opts.log('warn', `console: recursive watching is unavailable here; only top-level changes in ${opts.dir} are seen`);
        recursive = false;
        return attach();
      }
      if (code !== 'ENOENT') opts.log('warn', `console: cannot watch ${opts.dir}: ${(err as Error).message}`);
      missed = true;
      return scheduleRetry();
    }
    // The folder appeared since we last looked: what created it (the first offload) went unseen.
    if (missed) fire();
    missed = false;
    // The folder was deleted or the watch broke: drop it, look for the folder again, and say something changed.
    watcher.on('error', () => {
      watcher?.close();
      watcher = undefined;
      missed = true;
      scheduleRetry();
    });
  };

  attach();
  return {
    close() {
      closed = true;
      clearTimeout(debounce);
      clearTimeout(retry);
      watcher?.close();
      watcher = undefined;
    },
  };
}
