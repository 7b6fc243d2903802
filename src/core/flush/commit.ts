import { readFileSync, renameSync, rmSync } from 'node:fs';
import { createFileExclusive, writeFileAtomic, writeTempSibling } from '../fsutil/atomicWrite';
import { K0Error } from '../errors';

/** Test hook: called before each commit step; throwing there must leave the vault exactly as it was. */
export type Fault = (step: 'create' | 'rename', index: number) => void;

export interface CommitPlan {
  /** The new note: created exclusively (never overwrites). */
  create?: { abs: string; text: string };
  /** Existing notes rewritten: `before` is what we read, `after` what we write. */
  replace: { abs: string; before: string; after: string }[];
  fault?: Fault;
}

/**
 * Writes a set of files as one unit, as far as a file system allows:
 * 1. every replacement is written to a temp file beside its target and fsynced (nothing visible yet);
 * 2. the new note is created exclusively (a hard link: fails rather than overwrite);
 * 3. each target is checked to still hold the bytes we read (an editor may have saved meanwhile), then renamed over.
 * Any failure undoes what was done: renamed targets get their old bytes back, the new note is removed, temps go.
 * Returns false (and writes nothing) when the new note's path was taken by someone else.
 */
export function commitFiles(plan: CommitPlan): boolean {
  const temps: string[] = [];
  const renamed: { abs: string; before: string }[] = [];
  let createdPath: string | undefined;
  try {
    for (const r of plan.replace) temps.push(writeTemp(r.abs, r.after));
    if (plan.create) {
      plan.fault?.('create', 0);
      if (!createFileExclusive(plan.create.abs, plan.create.text)) {
        cleanup(temps);
        return false;
      }
      createdPath = plan.create.abs;
    }
    plan.replace.forEach((r, i) => {
      plan.fault?.('rename', i);
      if (readFileSync(r.abs, 'utf8') !== r.before) {
        throw new K0Error('WRITE_CONFLICT', `${r.abs} changed while flushing; nothing was written, try again`);
      }
      renameSync(temps[i], r.abs);
      renamed.push({ abs: r.abs, before: r.before });
    });
    return true;
  } catch (err) {
    const undoErrors: string[] = [];
    for (const r of renamed.reverse()) {
      try {
        writeFileAtomic(r.abs, r.before);
      } catch (e) {
        undoErrors.push(`${r.abs}: ${(e as Error).message}`);
      }
    }
    if (createdPath) rmSync(createdPath, { force: true });
    cleanup(temps);
    if (undoErrors.length) {
      throw new K0Error('IO_ERROR', `flush failed (${(err as Error).message}) and could not restore: ${undoErrors.join('; ')}`);
    }
    throw err;
  }
}

const writeTemp = (target: string, text: string): string => writeTempSibling(target, text);

function cleanup(temps: string[]): void {
  for (const t of temps) rmSync(t, { force: true });
}
