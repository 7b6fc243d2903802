import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Project } from '../project';
import { locateRepo, readHead } from './gitHead';
import { ensureTables, readMeta, readStatus, writeMeta } from './store';
import type { StalenessStatus } from './types';
import { AnchorWatch } from './anchorWatch';
import { settledStamp, stampHolds, type StoredState, type UpdateResult } from './updateState';

export type { UpdateResult } from './updateState';

/**
 * The incremental staleness update `Project.scan()` runs after every scan. A clean scan costs a read of HEAD from
 * the files in `.git` (no git process), one query and a stat of each anchored file: when HEAD, the notes' hashes
 * and those stats are what the last check saw, nothing else runs. Otherwise only notes that can have changed
 * verdict are recomputed: notes whose bytes changed (anchors re-extracted), whose base moved, and notes anchored
 * to files that changed since the last check (committed since the last HEAD, or dirty then or now).
 */

const OPERATION_FILES = ['rebase-merge', 'rebase-apply', 'MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD'];

/**
 * Per open index: the off reason last read or written, with the index file's stamp then. A long-lived host's clean
 * scan of a vault outside git otherwise ran one query (a lock round, ~3 ms of a 500-note vault's 6 ms clean scan)
 * only to learn the status it had stored itself.
 */
const offMemos = new WeakMap<object, string>();

function offStatus(project: Project, reason: string, t0: number): UpdateResult {
  const status: StalenessStatus = { enabled: false, reason };
  const seen = `${project.index.fileStamp()}\0${reason}`;
  if (offMemos.get(project.index) === seen) return { checked: 0, stale: 0, ms: performance.now() - t0, status, warnings: [] };
  const prev = readStatus(project.index);
  if (!prev || JSON.stringify(prev) !== JSON.stringify(status)) {
    project.index.write(() => {
      ensureTables(project.index);
      // No repository: nothing can be stale. Verdicts from an earlier repository would be lies now.
      project.index.run("UPDATE stale_notes SET state = 'unknown', info = NULL WHERE state = 'stale'");
      writeMeta(project.index, 'status', JSON.stringify(status));
      writeMeta(project.index, 'head', '');
    });
  }
  offMemos.set(project.index, `${project.index.fileStamp()}\0${reason}`);
  return { checked: 0, stale: 0, ms: performance.now() - t0, status, warnings: [] };
}

interface Memo {
  fileStamp: string;
  head: string;
  stamps: Record<string, string>;
  result: Omit<UpdateResult, 'ms' | 'warnings'>;
  /** What the slow path wrote, while the index file is untouched since (a host's update after a commit reads no row). */
  state?: StoredState;
  /** Set up on this memo's second use (a host that checks again and again): which anchored files moved. */
  watch?: AnchorWatch;
}

/** Per open index: what the last check saw, so a long-lived host's clean scan runs no query at all. */
const memos = new WeakMap<object, Memo>();

function stampsHold(top: string, stamps: Record<string, string>, only: Set<string> | 'all' = 'all'): boolean {
  if (only !== 'all') {
    for (const p of only) if (p in stamps && !stampHolds(top, p, stamps[p])) return false;
    return true;
  }
  for (const p in stamps) if (!stampHolds(top, p, stamps[p])) return false;
  return true;
}

/** The anchored files to stat for this memo: those the watch saw move (it starts on the memo's second use). */
async function movedSince(top: string, memo: Memo): Promise<Set<string> | 'all'> {
  if (!memo.watch) memo.watch = AnchorWatch.start(top, Object.keys(memo.stamps));
  return memo.watch ? memo.watch.changed() : 'all';
}

/** Stops a project's watch (Project.close). */
export function closeStaleness(idx: object): void {
  memos.get(idx)?.watch?.close();
  memos.delete(idx);
}

/** Everything the clean-scan test needs, in one query (a query takes the index lock: one, not eight). */
/**
 * Everything the clean-scan test needs, in one query over two small tables (a query takes the index lock). The
 * scanner bumps `meta.generation` whenever it writes documents: the same generation as at the last check means the
 * notes are the ones that check read.
 */
function quickState(project: Project): { head: string; stamps: Record<string, string>; stampsText: string; status?: StalenessStatus; same: boolean; checked: number; stale: number } | undefined {
  let rows;
  try {
    rows = project.index.all("SELECT key, value FROM stale_meta UNION ALL SELECT 'generation:now', value FROM meta WHERE key = 'generation'");
  } catch (err) {
    if (/no such table/i.test((err as Error).message)) return undefined;
    throw err;
  }
  const m = new Map(rows.map((r) => [String(r.key), String(r.value)]));
  if (!m.has('head') || !m.has('status') || !m.has('counts')) return undefined;
  const [checked, stale] = JSON.parse(m.get('counts')!) as [number, number];
  return {
    head: m.get('head')!,
    stamps: JSON.parse(m.get('stamps') ?? '{}') as Record<string, string>,
    stampsText: m.get('stamps') ?? '{}',
    status: JSON.parse(m.get('status')!) as StalenessStatus,
    same: m.get('generation') === (m.get('generation:now') ?? '0'),
    checked,
    stale,
  };
}

/**
 * Racy stamps (updateState.ts: taken within RACY_MS of the file's mtime, so they carry the bytes' hash) whose file
 * has since left the racy window, re-stored plain — as git rewrites a racily clean index entry once it is safe.
 * Without this a stamp taken right after a checkout (every file written in the same second, scanned at once) stays
 * racy for good, and every later clean scan reads and hashes every anchored file. Only called right after
 * `stampsHold` checked every stamp: the files are as stamped, so the plain stamp needs no new read. The write is
 * skipped when another process stored other stamps in between.
 */
function settleRacy(project: Project, stamps: Record<string, string>, storedText: string): Record<string, string> {
  const now = Date.now();
  let settled: Record<string, string> | undefined;
  for (const [p, stamp] of Object.entries(stamps)) {
    const plain = settledStamp(stamp, now);
    if (plain === undefined) continue;
    settled ??= { ...stamps };
    settled[p] = plain;
  }
  if (!settled) return stamps;
  try {
    const next = settled;
    project.index.write(() => {
      if ((readMeta(project.index, 'stamps') ?? '{}') === storedText) writeMeta(project.index, 'stamps', JSON.stringify(next));
    });
    return settled;
  } catch {
    // A busy or read-only index keeps the racy stamps: they are still right, only slower to check.
    return stamps;
  }
}

/** A new memo keeps the old one's watch while it watches the same files (events since then still count). */
function setMemo(idx: object, next: Memo, old: Memo | undefined): void {
  const w = old?.watch;
  if (w) {
    const keys = Object.keys(next.stamps);
    if (keys.length === w.paths.size && keys.every((k) => w.paths.has(k))) next.watch = w;
    else w.close();
  }
  memos.set(idx, next);
}

export async function updateStaleness(project: Project, opts: { signal?: AbortSignal } = {}): Promise<UpdateResult> {
  const t0 = performance.now();
  const idx = project.index;
  const repo = locateRepo(project.paths.projectRoot);
  if (!repo) return offStatus(project, 'not a git repository: staleness needs the notes and the code in one repository', t0);
  const head = readHead(repo);
  if (!head) return offStatus(project, 'the repository has no commits yet', t0);

  const memo = memos.get(idx);
  const sameIndex = !!memo && memo.fileStamp === idx.fileStamp();
  // The files the watch saw move (all of them without a watch); asked once, used by the clean test or the update.
  const moved = memo && sameIndex ? await movedSince(repo.top, memo) : 'all';
  if (memo && sameIndex && memo.head === head && stampsHold(repo.top, memo.stamps, moved)) {
    return { ...memo.result, ms: performance.now() - t0, warnings: [] };
  }
  // Mid-rebase / merge the working tree is between two histories: keep the last verdicts until it is done.
  const busy = OPERATION_FILES.some((f) => existsSync(join(repo.gitDir, f)));
  if (memo && sameIndex) {
    // The index holds what the memo says (no process wrote it since): the clean test above was the stored one.
    if (busy) return { ...memo.result, ms: performance.now() - t0, warnings: [] };
  } else {
    const quick = quickState(project);
    if (quick?.status && (busy || (quick.same && quick.head === head && quick.status.enabled && stampsHold(repo.top, quick.stamps)))) {
      const result = { checked: quick.checked, stale: quick.stale, status: quick.status };
      const stamps = busy ? quick.stamps : settleRacy(project, quick.stamps, quick.stampsText);
      if (!busy) setMemo(idx, { fileStamp: idx.fileStamp(), head, stamps, result }, memo);
      return { ...result, ms: performance.now() - t0, warnings: [] };
    }
  }
  const kept = memo?.state && sameIndex ? memo.state : undefined;
  const { refresh } = await import('./refresh');
  const { result: out, state } = await refresh(project, repo, head, kept, opts.signal, t0, kept ? moved : 'all');
  setMemo(idx, { fileStamp: idx.fileStamp(), head, stamps: state.stamps, result: { checked: out.checked, stale: out.stale, status: out.status }, state }, memo);
  return out;
}

