import { existsSync, statSync } from 'node:fs';
import { K0Error } from './errors';
import { IndexDb, type Logger } from './index/db';
import { IncrementalScanner, type ScanOptions, type ScanReport } from './scan/scanner';
import { locateVault, readConfig, type K0Config, type LocateOptions, type VaultPaths } from './vault/paths';
import { recoverIfPending } from './flush/pending';
import { noteSources } from './vault/noteSources';

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
}

export function openProject(opts: OpenProjectOptions = {}): Project {
  const paths = opts.paths ?? locateVault(opts);
  if (!existsSync(paths.notesRoot) || !statSync(paths.notesRoot).isDirectory()) {
    throw new K0Error('VAULT_NOT_FOUND', `notes folder does not exist: ${paths.notesRoot} (run \`k0maru init\`)`);
  }
  const log: Logger = opts.log ?? (() => {});
  const config = readConfig(paths.k0Dir);
  const index = IndexDb.open(paths.indexPath, log);
  // The vault and the repository's ADR folders: the same sources the guard reads rules from.
  const scanner = new IncrementalScanner(index, () => noteSources(paths, config));
  let closed = false;
  return {
    paths,
    config,
    index,
    log,
    // A flush killed midway is finished (or undone) before the scan reads its notes: src/core/flush/recover.ts.
    scan: async (scanOpts: ScanOptions = {}) => {
      await recoverIfPending(paths, log);
      return scanner.scan({ exclude: config.exclude, ...scanOpts });
    },
    close: () => {
      if (!closed) index.close();
      closed = true;
    },
  };
}

/** Opens, scans and hands the project to `fn`, closing it afterwards: the shape of a one-shot CLI call. */
export async function withProject<T>(opts: OpenProjectOptions, fn: (p: Project, scan: ScanReport) => Promise<T> | T, scanOpts?: ScanOptions): Promise<T> {
  const project = openProject(opts);
  try {
    const report = await project.scan(scanOpts);
    return await fn(project, report);
  } finally {
    project.close();
  }
}
