import { renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isK0Error } from '../errors';
import { sweepStaleTemps } from '../fsutil/atomicWrite';
import { faultPoint } from '../fsutil/fault';
import type { VaultPaths } from '../vault/paths';
import { journalPath, readJournal, removeJournal, RollForwardConflict, rollBackOp, rollForwardOp, targetOf, tempOf, writeJournal, type FlushJournal } from './journal';
import { acquireFlushLock, clearStaleFlushLock } from './lock';
import { hasPendingFlush, JOURNAL_TEMP } from './pending';

export interface RecoveryReport {
  /** What the interrupted flush became: finished, undone, or nothing was pending. */
  action: 'none' | 'rolled-forward' | 'rolled-back' | 'set-aside';
  /** Vault-relative paths the journal named. */
  paths: string[];
  warnings: string[];
}

const NONE: RecoveryReport = { action: 'none', paths: [], warnings: [] };

/**
 * Finishes a flush that a killed process left half done (see journal.ts). Every process that opens a vault calls
 * this first — scan (and so every MCP call and `k0maru ui`), guard, flush — so the interrupted pair is whole again
 * before anyone reads it. Costs two stats when nothing is pending. Never throws: a vault it cannot repair right
 * now (the lock is held by a live flush, which will finish its own journal) is left for the next call.
 */
export function recoverPendingFlush(paths: VaultPaths, opts: { env?: NodeJS.ProcessEnv; lockTimeoutMs?: number } = {}): RecoveryReport {
  clearStaleFlushLock(paths.k0Dir);
  if (!hasPendingFlush(paths.k0Dir)) return NONE;
  let lock;
  try {
    lock = acquireFlushLock(paths.k0Dir, opts.lockTimeoutMs ?? 2_000);
  } catch (err) {
    return { ...NONE, warnings: [`an interrupted flush could not be recovered yet: ${(err as Error).message}`] };
  }
  try {
    return recoverLocked(paths, opts.env);
  } catch (err) {
    return { ...NONE, warnings: [`recovering an interrupted flush failed (it is retried on the next run): ${isK0Error(err) ? err.message : (err as Error).message}`] };
  } finally {
    lock.release();
  }
}

/** The same, for a caller that already holds the flush lock (flushNote). */
export function recoverLocked(paths: VaultPaths, env?: NodeJS.ProcessEnv): RecoveryReport {
  if (!hasPendingFlush(paths.k0Dir)) return NONE;
  // A journal temp was never renamed into place: that flush had not started changing the vault.
  rmSync(join(paths.k0Dir, JOURNAL_TEMP), { force: true });
  const j = readJournal(paths.k0Dir);
  if (j === undefined) return NONE;
  if (j === 'invalid' || resolve(dirname(paths.k0Dir), j.notesRoot) !== resolve(paths.notesRoot)) {
    const aside = `${journalPath(paths.k0Dir)}.invalid-${Date.now()}`;
    renameSync(journalPath(paths.k0Dir), aside);
    const why = j === 'invalid' ? 'is unreadable' : `names another notes folder (${j.notesRoot})`;
    return { action: 'set-aside', paths: [], warnings: [`the flush journal ${why}; moved aside to ${aside}, nothing was changed`] };
  }
  faultPoint('recover', 'start', env);
  const warnings: string[] = [];
  let action: RecoveryReport['action'] = 'rolled-forward';
  let journal: FlushJournal = j;
  if (journal.state === 'apply') {
    try {
      journal.ops.forEach((op, i) => {
        faultPoint('recover', `op-${i}`, env);
        rollForwardOp(paths.notesRoot, op, warnings);
      });
    } catch (err) {
      if (!(err instanceof RollForwardConflict)) throw err;
      warnings.push(`${err.message}: the interrupted flush was undone`);
      journal = { ...journal, state: 'rollback', at: Date.now() };
      writeJournal(paths.k0Dir, journal, env);
    }
  }
  if (journal.state === 'rollback') {
    action = 'rolled-back';
    [...journal.ops].reverse().forEach((op, i) => {
      faultPoint('recover', `undo-${i}`, env);
      rollBackOp(paths.notesRoot, op, warnings);
    });
  }
  faultPoint('recover', 'done', env);
  removeJournal(paths.k0Dir);
  const dirs = new Set<string>();
  for (const op of journal.ops) {
    rmSync(tempOf(paths.notesRoot, op), { force: true });
    dirs.add(dirname(targetOf(paths.notesRoot, op)));
  }
  for (const d of dirs) sweepStaleTemps(d);
  return { action, paths: journal.ops.map((o) => o.rel), warnings };
}

/** A one-line account of a recovery for an adapter's log, or undefined when nothing was pending. */
export function describeRecovery(r: RecoveryReport): string | undefined {
  if (r.action === 'none') return r.warnings[0];
  const what = r.action === 'rolled-forward' ? 'finished' : r.action === 'rolled-back' ? 'undone' : 'set aside';
  return [`an interrupted flush was ${what} (${r.paths.join(', ') || 'journal'})`, ...r.warnings].join('; ');
}
