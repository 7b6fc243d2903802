import { readFileSync, statSync } from 'node:fs';
import { blobId } from './blob';
import { join, sep } from 'node:path';
import type { StalenessStatus } from './types';
import type { StoredNote } from './store';
import type { DefinitionCache } from './symbolIndex';

/** What update.ts (the clean-scan test) and refresh.ts (the slow path) share. */

export interface UpdateResult {
  checked: number;
  stale: number;
  ms: number;
  status: StalenessStatus;
  /** Per-note problems with anchors (ambiguous explicit anchors, the per-note cap), `path: message`. */
  warnings: string[];
}

export type DocRow = { id: number; path: string; hash: string; frontmatter: string };

/** The rows and meta of the last check, kept in memory by a long-lived host while the index file is untouched. */
export interface StoredState {
  notes: StoredNote[];
  docs: DocRow[];
  prevHead: string;
  stamps: Record<string, string>;
  dirty: string[];
  /** Every file dirty at that check, anchored or not (in memory only: what lets afterCommit.ts skip `git diff HEAD`). */
  dirtyAll?: string[];
  /** The definitions cache, kept with the rows (so a host's next update runs no query to learn what is stored). */
  defs?: DefinitionCache;
  /** Each document's `verified_at` (by id), for the same documents. */
  verified?: Map<number, string | undefined>;
  /** Note index path → repository path (undefined: outside the repository), for the same project. */
  repoPaths?: Map<string, string | undefined>;
  /** The stale_meta values written at that check (an update rewrites only those that changed). */
  meta?: Record<string, string>;
  /** The scanner's `meta.generation` when the documents were read. */
  generation: string;
}

/** Anchored files whose mtime/size are stored for the clean-scan test; beyond this many they are not. */
export const MAX_STAMPS = 20_000;

/**
 * How recent a modification must be for its stamp not to prove anything (git's "racy clean" rule): file times
 * come from a coarse clock (a few ms on Linux, 1–2 s on some file systems), so a file written in the same tick as
 * the stamp can change again, same size, without its mtime moving. Such a stamp carries the bytes' hash, and a
 * later check compares the bytes, as git compares a racily clean index entry's content.
 */
export const RACY_MS = 2000;

/** `mtimeMs:size` of a working-tree file, `-` when it is missing, plus `:<blob id>` when the mtime is racy. */
export function stampOf(top: string, path: string, now = Date.now()): string {
  const abs = join(top, path);
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st) return '-';
  const stamp = `${st.mtimeMs}:${st.size}`;
  if (st.mtimeMs < now - RACY_MS) return stamp;
  try {
    return `${stamp}:${blobId(readFileSync(abs))}`;
  } catch {
    return '-';
  }
}

/**
 * The plain form of a racy stamp whose mtime is now past the racy window, else undefined. Only for a stamp that
 * `stampHolds` has just found holding: the file is as stamped, and a later change moves its mtime.
 */
export function settledStamp(stamp: string, now = Date.now()): string | undefined {
  const parts = stamp.split(':');
  return parts.length === 3 && Number(parts[0]) < now - RACY_MS ? `${parts[0]}:${parts[1]}` : undefined;
}

/** Whether the file is as it was when `stamp` was taken (a racy stamp's bytes are compared too). */
export function stampHolds(top: string, path: string, stamp: string): boolean {
  const abs = join(top, path);
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st) return stamp === '-';
  const plain = `${st.mtimeMs}:${st.size}`;
  if (stamp === plain) return true;
  if (stamp.length <= plain.length || !stamp.startsWith(plain) || stamp[plain.length] !== ':') return false;
  try {
    return blobId(readFileSync(abs)) === stamp.slice(plain.length + 1);
  } catch {
    return false;
  }
}

export function toPosix(p: string): string {
  return p.split(sep).join('/');
}

export function summary(notes: StoredNote[], status: StalenessStatus, t0: number, warnings: string[]): UpdateResult {
  let checked = 0;
  let stale = 0;
  for (const n of notes) {
    if (n.anchors.length) checked++;
    if (n.state === 'stale') stale++;
  }
  return { checked, stale, ms: performance.now() - t0, status, warnings };
}
