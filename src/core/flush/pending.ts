import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Names inside `.k0maru/` (the journal protocol is in journal.ts). Kept in this dependency-free file so the guard
 *  hook and every scan can ask "is a flush pending?" without loading the flush engine. */
export const JOURNAL_FILE = 'flush.journal';
/** The journal is written here first; only one flush at a time writes (under the flush lock). */
export const JOURNAL_TEMP = 'flush.journal.tmp';
/** The flush lock's directory (lock.ts). */
export const LOCK_DIR = 'flush.lock';

/** Two stats: true when a killed flush left its journal (or the journal's temp) behind. */
export function hasPendingFlush(k0Dir: string): boolean {
  return existsSync(join(k0Dir, JOURNAL_FILE)) || existsSync(join(k0Dir, JOURNAL_TEMP));
}

/**
 * Also true while anything of the flush lock exists (held now, or left by a killed flush: then it is cleared) —
 * the lock or the private folder a lock is built in (`flush.lock.new-<pid>-…`, lock.ts): one readdir of `.k0maru/`.
 */
function needsLook(k0Dir: string): boolean {
  if (hasPendingFlush(k0Dir)) return true;
  try {
    return readdirSync(k0Dir).some((n) => n.startsWith(LOCK_DIR));
  } catch {
    return false;
  }
}

/**
 * For adapters and hosts: finishes an interrupted flush before the vault is read, reporting what happened through
 * `log`. Loads the flush engine only when something is pending.
 */
export async function recoverIfPending(paths: { k0Dir: string; notesRoot: string }, log?: (level: 'warn', msg: string) => void): Promise<void> {
  if (!needsLook(paths.k0Dir)) return;
  const { recoverPendingFlush, describeRecovery } = await import('./recover');
  const line = describeRecovery(recoverPendingFlush(paths as import('../vault/paths').VaultPaths));
  if (line) log?.('warn', line);
}
