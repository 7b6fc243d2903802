import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { faultPoint } from '../fsutil/fault';
import { fsyncDir, isOurTempName, writeNewFileSynced } from '../fsutil/atomicWrite';
import { safeJoin } from '../vault/paths';
import { readRegularFile } from '../vault/regularFile';
import { setFrontmatterFields } from './frontmatterEdit';
import { JOURNAL_FILE, JOURNAL_TEMP } from './pending';

/**
 * The intent record of one flush: which note is created and which notes are rewritten, with every byte needed to
 * finish or undo the job. It is made durable (fsynced, renamed into place) before the vault changes at all, so a
 * process killed at any later point leaves a journal that the next process to open the vault replays:
 * `apply` rolls forward (the flush happened), `rollback` rolls back (the flush failed and was being undone).
 * Every step is idempotent, so a process killed while recovering is recovered in turn.
 */

export interface CreateOp {
  kind: 'create';
  /** Vault-relative path of the new note. */
  rel: string;
  /** Name of the temp file beside it (same folder). */
  temp: string;
  text: string;
}

export interface ReplaceOp {
  kind: 'replace';
  rel: string;
  temp: string;
  before: string;
  after: string;
  /** The frontmatter fields the edit sets: re-applied when someone changed the note before recovery. */
  fields: Record<string, unknown>;
}

export type JournalOp = CreateOp | ReplaceOp;

export interface FlushJournal {
  version: 1;
  state: 'apply' | 'rollback';
  pid: number;
  at: number;
  /** The notes folder, relative to the project root (so a project moved or re-cloned still recovers). */
  notesRoot: string;
  ops: JournalOp[];
}

export const journalPath = (k0Dir: string): string => join(k0Dir, JOURNAL_FILE);

/**
 * Writes the journal atomically: a reader sees the previous journal (or none) or this one, never a torn file.
 * A killed process's writes survive in the page cache, so SIGKILL-safety needs no fsync; `durable` adds the two
 * fsyncs that also make the intent survive a power cut, which only a flush that edits several files needs
 * (a lone new note is one atomic link either way).
 */
export function writeJournal(k0Dir: string, j: FlushJournal, env?: NodeJS.ProcessEnv, durable = true): void {
  const tmp = join(k0Dir, JOURNAL_TEMP);
  rmSync(tmp, { force: true });
  writeNewFileSynced(tmp, JSON.stringify(j), durable);
  faultPoint('flush', j.state === 'apply' ? 'journal-rename' : 'rollback-journal-rename', env);
  renameSync(tmp, journalPath(k0Dir));
  if (durable) fsyncDir(k0Dir);
}

/** No fsync: a removal lost to a power cut only makes the next run replay ops that are already done (idempotent). */
export function removeJournal(k0Dir: string): void {
  rmSync(journalPath(k0Dir), { force: true });
}

/** The journal, undefined when there is none, or 'invalid' when it cannot be trusted (hand-edited, damaged). */
export function readJournal(k0Dir: string): FlushJournal | 'invalid' | undefined {
  let raw: string;
  try {
    raw = readFileSync(journalPath(k0Dir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return 'invalid';
  }
  try {
    const j = JSON.parse(raw) as FlushJournal;
    const okOp = (o: JournalOp) =>
      o &&
      typeof o.rel === 'string' &&
      // A journal is data from disk: it may only name notes inside the vault.
      !isAbsolute(o.rel) &&
      !o.rel.includes('\0') &&
      !o.rel.split(/[\\/]/).includes('..') &&
      typeof o.temp === 'string' &&
      o.temp === basename(o.temp) &&
      isOurTempName(o.temp) &&
      (o.kind === 'create'
        ? typeof o.text === 'string'
        : o.kind === 'replace' && typeof o.before === 'string' && typeof o.after === 'string' && !!o.fields && typeof o.fields === 'object');
    if (j && j.version === 1 && (j.state === 'apply' || j.state === 'rollback') && typeof j.notesRoot === 'string' && Array.isArray(j.ops) && j.ops.every(okOp)) {
      return j;
    }
  } catch {
    // fall through
  }
  return 'invalid';
}

export const targetOf = (notesRoot: string, op: JournalOp): string => safeJoin(notesRoot, op.rel);
export const tempOf = (notesRoot: string, op: JournalOp): string => join(dirname(targetOf(notesRoot, op)), op.temp);

/** The file's text, or undefined when it is missing or not a regular file (a FIFO is never waited on). */
function readIfFile(abs: string): string | undefined {
  try {
    return readRegularFile(abs).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Writes `text` into the op's own temp (replacing a half-written one) and renames it over the target. */
function replaceWith(notesRoot: string, op: JournalOp, text: string): void {
  const tmp = tempOf(notesRoot, op);
  rmSync(tmp, { force: true });
  writeNewFileSynced(tmp, text);
  renameSync(tmp, targetOf(notesRoot, op));
}

export class RollForwardConflict extends Error {}

/**
 * Finishes one op during recovery. A note someone edited since our read gets the same frontmatter fields set on
 * its current text (their edit is kept); a new note's name taken by a different file cannot be rolled forward.
 */
export function rollForwardOp(notesRoot: string, op: JournalOp, warnings: string[]): void {
  const abs = targetOf(notesRoot, op);
  const tmp = tempOf(notesRoot, op);
  const cur = readIfFile(abs);
  if (op.kind === 'create') {
    if (cur === undefined && !existsSync(abs)) {
      rmSync(tmp, { force: true });
      mkdirSync(dirname(tmp), { recursive: true });
      writeNewFileSynced(tmp, op.text);
      try {
        linkSync(tmp, abs);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if (readIfFile(abs) !== op.text) throw new RollForwardConflict(`${op.rel} was created by someone else meanwhile`);
      }
    } else if (cur !== op.text) {
      throw new RollForwardConflict(`${op.rel} was created by someone else meanwhile`);
    }
    rmSync(tmp, { force: true });
    return;
  }
  if (cur === undefined) {
    warnings.push(`${op.rel} is gone; it could not be marked superseded`);
    return;
  }
  if (cur === op.after) return;
  if (cur === op.before) return replaceWith(notesRoot, op, op.after);
  let edited: string;
  try {
    edited = setFrontmatterFields(cur, op.fields, op.rel);
  } catch (err) {
    throw new RollForwardConflict(`${op.rel} changed and can no longer be edited: ${(err as Error).message}`);
  }
  if (edited !== cur) replaceWith(notesRoot, op, edited);
  warnings.push(`${op.rel} had changed since the interrupted flush; its edit was applied to the current text`);
}

/** Undoes one op: only bytes that are still exactly ours are touched; anyone else's later edit stays. */
export function rollBackOp(notesRoot: string, op: JournalOp, warnings: string[]): void {
  const abs = targetOf(notesRoot, op);
  const cur = readIfFile(abs);
  if (op.kind === 'create') {
    if (cur === op.text) rmSync(abs, { force: true });
  } else if (cur === op.after) {
    replaceWith(notesRoot, op, op.before);
  } else if (cur !== undefined && cur !== op.before) {
    warnings.push(`${op.rel} was edited by someone else after the failed flush; left as it is`);
  }
  rmSync(tempOf(notesRoot, op), { force: true });
}
