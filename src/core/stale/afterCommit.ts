import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blobIdOf } from './blob';
import type { KnownBase } from './compute';
import type { CommitRef } from './gitQueries';
import { historyFrom, lastChangesFrom, NewCommits } from './newCommits';
import type { StoredNote } from './store';
import { stampHolds } from './updateState';

/**
 * The update after new commits in a long-lived host, with one git process (see newCommits.ts) instead of eight.
 * It stands in for the general probe of refresh.ts — fast-forward?, files dirty now, files changed between the two
 * HEADs, the notes' new last commits — and hands compute.ts the last HEAD's diff, hunks and history. It applies
 * only when it can prove the working tree says nothing the tree-to-tree answers miss:
 *  - the last check's full list of dirty files is in memory (a host that checked before), and no anchored file
 *    was dirty then;
 *  - no note changed since that check (the scan wrote nothing);
 *  - every anchored file the commits did not touch still has its stamp (so it is as clean as it was);
 *  - every file the commits touched that matters (anchored, a rename target of an anchored file, a note) hashes
 *    in the working tree to its blob at the new HEAD (or is absent where HEAD has none).
 * Anything else returns undefined and the general probe runs. Like the clean-scan test, it reads the working tree
 * and not the index: a change only to the index (`git rm --cached`) waits for the next change git reports.
 */

export interface AfterCommit {
  dirtyNow: Set<string>;
  committedDelta: string[];
  newCommits: Map<string, CommitRef>;
  known: KnownBase;
}

export interface AfterCommitInput {
  top: string;
  prevHead: string;
  head: string;
  /** Every dirty file at the last check (undefined: not known in this process). */
  dirtyAll: string[] | undefined;
  dirtyBefore: string[];
  stamps: Record<string, string>;
  /** The anchored files the host's watch saw move since the last check ('all': no watch, stat every one). */
  watched: Set<string> | 'all';
  anchored: StoredNote[];
  /** Repository paths of every note. */
  notePaths: Set<string>;
  folders: string[];
  signal?: AbortSignal;
}

function matchesBlob(top: string, path: string, blob: string | undefined): boolean {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(top, path));
  } catch {
    return blob === undefined;
  }
  return blob !== undefined && blobIdOf(bytes, blob.length) === blob;
}

export async function afterCommit(input: AfterCommitInput): Promise<AfterCommit | undefined> {
  const { top, prevHead, head, dirtyAll, stamps } = input;
  if (!dirtyAll || input.dirtyBefore.length) return undefined;
  const d = await NewCommits.read(top, prevHead, head, input.signal);
  if (!d) return undefined;
  const anchoredPaths = new Set<string>();
  for (const n of input.anchored) for (const a of n.anchors) anchoredPaths.add(a.path);
  // Anchored files the commits did not touch: unchanged since the last check, when they were clean.
  const { watched } = input;
  const suspects = watched === 'all' ? Object.keys(stamps) : [...watched].filter((p) => p in stamps);
  for (const p of suspects) if (!d.paths.has(p) && !stampHolds(top, p, stamps[p])) return undefined;
  // The files whose working-tree bytes the answers assume: anchored or note files the commits touched, and the
  // new names of anchored files renamed.
  const check = new Set<string>();
  for (const p of d.paths) if (anchoredPaths.has(p) || input.notePaths.has(p)) check.add(p);
  for (const p of anchoredPaths) {
    const to = d.changes.get(p)?.to;
    if (to) check.add(to);
  }
  for (const p of check) {
    if (d.unprovable.has(p)) return undefined;
    if (!matchesBlob(top, p, d.blobs.get(p))) return undefined;
  }
  const dirtyNow = new Set(dirtyAll.filter((p) => !d.paths.has(p)));
  return {
    dirtyNow,
    committedDelta: [...d.paths],
    newCommits: lastChangesFrom(d.commits, input.folders),
    known: { base: prevHead, changes: d.changes, hunks: d.hunks, history: (paths) => historyFrom(d.commits, paths) },
  };
}
