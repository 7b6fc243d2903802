import { linkSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';
import { fsyncDir, tempPathFor, writeNewFileSynced } from '../fsutil/atomicWrite';
import { faultPoint } from '../fsutil/fault';
import { K0Error } from '../errors';
import { safeJoin } from '../vault/paths';
import { removeJournal, rollBackOp, targetOf, tempOf, writeJournal, type FlushJournal, type JournalOp } from './journal';

/**
 * The named points of a commit, in order. `K0MARU_FAULT=flush:<point>` kills the process just before it
 * (`temp-<i>` and `rename-<i>` per file; `journal-rename` after the journal's temp is written, before it is
 * renamed into place); the throwing test hook `fault` is called at the same points.
 */
export type CommitStep = 'journal' | 'temp' | 'create' | 'rename' | 'commit' | 'cleanup';

/** Test hook: called before each commit step; throwing there must leave the vault exactly as it was. */
export type Fault = (step: CommitStep, index: number) => void;

export interface CommitPlan {
  /** `.k0maru/`: where the journal lives. */
  k0Dir: string;
  notesRoot: string;
  /** The new note: created exclusively (never overwrites). */
  create?: { rel: string; text: string };
  /** Existing notes rewritten: `before` is what we read, `after` what we write, `fields` what the edit sets. */
  replace: { rel: string; before: string; after: string; fields: Record<string, unknown> }[];
  fault?: Fault;
  env?: NodeJS.ProcessEnv;
}

/**
 * Writes a set of files as one unit, recoverably under SIGKILL. The caller holds the flush lock.
 * 1. the journal (every op with the bytes it needs) is made durable: from here on the flush is decided;
 * 2. each file's new bytes go to an fsynced temp beside it;
 * 3. the new note is created exclusively (a hard link: fails rather than overwrite) — first, so that in a crash
 *    window the old ADR's rules still apply next to the new one rather than neither applying;
 * 4. each old note is checked to still hold the bytes we read (an editor may have saved meanwhile), then renamed over;
 * 5. the journal is removed (no temp is left by then).
 * A process killed anywhere leaves the journal, which the next process replays (see recover.ts). A failure here
 * (a conflict, an I/O error, the test hook) rolls back in-process, itself journaled as `rollback`.
 * Returns false (and writes nothing) when the new note's path was taken by someone else.
 */
export function commitFiles(plan: CommitPlan): boolean {
  const step = (s: CommitStep, i = 0) => {
    faultPoint('flush', s === 'temp' || s === 'rename' ? `${s}-${i}` : s, plan.env);
    plan.fault?.(s, i);
  };
  const newTemp = (rel: string) => basename(tempPathFor(safeJoin(plan.notesRoot, rel)));
  const ops: JournalOp[] = [];
  if (plan.create) ops.push({ kind: 'create', rel: plan.create.rel, temp: newTemp(plan.create.rel), text: plan.create.text });
  for (const r of plan.replace) ops.push({ kind: 'replace', rel: r.rel, temp: newTemp(r.rel), before: r.before, after: r.after, fields: r.fields });
  const journal: FlushJournal = { version: 1, state: 'apply', pid: process.pid, at: Date.now(), notesRoot: relative(dirname(plan.k0Dir), plan.notesRoot) || '.', ops };

  const durable = plan.replace.length > 0;
  step('journal');
  writeJournal(plan.k0Dir, journal, plan.env, durable);
  try {
    ops.forEach((op, i) => {
      step('temp', i);
      const tmp = tempOf(plan.notesRoot, op);
      if (op.kind === 'create') mkdirSync(dirname(tmp), { recursive: true });
      writeNewFileSynced(tmp, op.kind === 'create' ? op.text : op.after);
    });
    const dirs = new Set<string>();
    let i = 0;
    for (const op of ops) {
      const abs = targetOf(plan.notesRoot, op);
      const tmp = tempOf(plan.notesRoot, op);
      dirs.add(dirname(abs));
      if (op.kind === 'create') {
        step('create');
        try {
          linkSync(tmp, abs);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          // Someone outside k0maru took the name: nothing of ours is visible yet.
          discard(plan, journal);
          return false;
        }
        rmSync(tmp, { force: true }); // the note is in place; the temp is only a second name for it
      } else {
        step('rename', i++);
        if (readFileSync(abs, 'utf8') !== op.before) {
          throw new K0Error('WRITE_CONFLICT', `${op.rel} changed while flushing; nothing was written, try again`);
        }
        renameSync(tmp, abs);
      }
    }
    // Before the journal goes, the renames must be on disk (power cut); a lone link needs no such ordering.
    if (durable) for (const d of dirs) fsyncDir(d);
    step('commit');
    removeJournal(plan.k0Dir);
    step('cleanup');
    return true;
  } catch (err) {
    rollBack(plan, journal, err);
    throw err;
  }
}

/** Nothing was applied: drop the temps and the journal. */
function discard(plan: CommitPlan, journal: FlushJournal): void {
  for (const op of journal.ops) rmSync(tempOf(plan.notesRoot, op), { force: true });
  removeJournal(plan.k0Dir);
}

function rollBack(plan: CommitPlan, journal: FlushJournal, cause: unknown): void {
  const warnings: string[] = [];
  try {
    const back: FlushJournal = { ...journal, state: 'rollback', at: Date.now() };
    writeJournal(plan.k0Dir, back, plan.env);
    faultPoint('flush', 'rollback', plan.env);
    for (const op of [...journal.ops].reverse()) rollBackOp(plan.notesRoot, op, warnings);
    removeJournal(plan.k0Dir);
  } catch (e) {
    // The journal stays: the next process to open the vault finishes the rollback.
    throw new K0Error('IO_ERROR', `flush failed (${(cause as Error).message}) and could not be undone yet (${(e as Error).message}); the next k0maru run finishes undoing it`);
  }
}
