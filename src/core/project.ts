import { existsSync, statSync } from 'node:fs';
import { isK0Error, K0Error } from './errors';
import { IndexDb, type IndexOpenOptions, type Logger } from './index/db';
import { IncrementalScanner, type ScanOptions, type ScanReport } from './scan/scanner';
import { locateVault, readConfig, type K0Config, type LocateOptions, type VaultPaths } from './vault/paths';
import { recoverIfPending } from './flush/pending';
import { noteSources } from './vault/noteSources';
import { closeStaleness, updateStaleness } from './stale/update';

/**
 * One opened project: its paths, its index and its scanner. Every adapter (CLI, MCP server, extension) opens one
 * and passes it to the core use cases. Long-lived hosts keep it open so the scanner's in-memory state stays warm.
 */
export interface Project {
  readonly paths: VaultPaths;
  readonly config: K0Config;
  readonly index: IndexDb;
  readonly log: Logger;
  scan(opts?: ScanOptions): Promise<ScanReport>;
  close(): void;
}

export interface OpenProjectOptions extends LocateOptions {
  log?: Logger;
  /** Use these paths instead of locating the vault. */
  paths?: VaultPaths;
  /** How the index is opened (busy budget, a quick_check on open for hosts that live long enough to afford it). */
  index?: IndexOpenOptions;
}

export function openProject(opts: OpenProjectOptions = {}): Project {
  const paths = opts.paths ?? locateVault(opts);
  if (!existsSync(paths.notesRoot) || !statSync(paths.notesRoot).isDirectory()) {
    throw new K0Error('VAULT_NOT_FOUND', `notes folder does not exist: ${paths.notesRoot} (run \`k0maru init\`)`);
  }
  const log: Logger = opts.log ?? (() => {});
  const config = readConfig(paths.k0Dir);
  const index = IndexDb.open(paths.indexPath, log, opts.index);
  // The vault and the repository's ADR folders: the same sources the guard reads rules from.
  const scanner = new IncrementalScanner(index, () => noteSources(paths, config));
  let closed = false;
  let staleWarned = false;
  // Staleness (src/core/stale) follows every scan so each host sees current verdicts; it never fails the scan.
  // A withdrawn scan skips it silently; a replaced (corrupt) index rescans like the scan itself does.
  const withStaleness = async (report: ScanReport, signal: AbortSignal | undefined): Promise<ScanReport> => {
    try {
      report.staleness = await updateStaleness(self, { signal });
    } catch (err) {
      if (isRebuiltIndex(err)) throw err;
      if (!signal?.aborted && !staleWarned) log('warn', `staleness not updated: ${(err as Error).message}`);
      staleWarned = true;
    }
    return report;
  };
  const self: Project = {
    paths,
    config,
    index,
    log,
    // A flush killed midway is finished (or undone) before the scan reads its notes: src/core/flush/recover.ts.
    scan: async (scanOptions: ScanOptions = {}) => {
      await recoverIfPending(paths, log);
      const run = async () => withStaleness(await scanner.scan(scanOptions), scanOptions.signal);
      try {
        return await run();
      } catch (err) {
        // The index was corrupt and has just been replaced by an empty one: a scan is what refills it.
        if (isRebuiltIndex(err)) return run();
        throw err;
      }
    },
    close: () => {
      if (!closed) {
        closeStaleness(index);
        index.close();
      }
      closed = true;
    },
  };
  return self;
}

/**
 * Opens, scans and hands the project to `fn`, closing it afterwards: the shape of a one-shot CLI call. When the
 * index turns out to be corrupt midway, IndexDb has already replaced it with an empty one: the call rescans (which
 * refills it from the Markdown) and runs `fn` once more, so the person sees a warning, not a failure. `fn` must
 * therefore be safe to run twice (the callers are read-only: recall, loadout, scoreboard).
 */
export async function withProject<T>(opts: OpenProjectOptions, fn: (p: Project, scan: ScanReport) => Promise<T> | T, scanOpts?: ScanOptions): Promise<T> {
  const project = openProject({ ...opts, log: opts.log ?? warnOnStderr });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const report = await project.scan(scanOpts);
        return await fn(project, report);
      } catch (err) {
        if (attempt === 0 && isRebuiltIndex(err)) continue;
        throw err;
      }
    }
  } finally {
    project.close();
  }
}

/** INDEX_CORRUPT after IndexDb moved the bad file aside and opened a fresh one (see IndexDb.heal). */
export function isRebuiltIndex(err: unknown): boolean {
  return isK0Error(err) && err.code === 'INDEX_CORRUPT' && err.data?.rebuilt === true;
}

/** One-shot calls without a logger still tell the person when the index was repaired (stdout stays the answer's). */
const warnOnStderr: Logger = (level, message) => {
  if (level !== 'info') process.stderr.write(`k0maru: ${level}: ${message}\n`);
};
