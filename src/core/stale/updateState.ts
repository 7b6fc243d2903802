import { statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { StalenessStatus } from './types';
import type { StoredNote } from './store';

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
  /** The scanner's `meta.generation` when the documents were read. */
  generation: string;
}

/** Anchored files whose mtime/size are stored for the clean-scan test; beyond this many they are not. */
export const MAX_STAMPS = 20_000;

export function stampOf(top: string, path: string): string {
  try {
    const st = statSync(join(top, path));
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return '-';
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
