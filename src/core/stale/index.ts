import type { IndexDb } from '../index/db';
import type { StaleInfo, StalenessStatus } from './types';
import { readStaleRows, readStatus } from './store';

/**
 * Staleness for every surface (recall, loadout, MCP, guard, editor, console, CLI). Reads are plain queries on the
 * index (no git); `updateStaleness` (run by Project.scan) is the only place that asks git.
 */

export type { Anchor, AnchorKind, StaleAnchor, StaleInfo, StalenessStatus } from './types';
export { updateStaleness, type UpdateResult } from './update';

type Verify = typeof import('./verify');
/**
 * verify.ts is loaded on use: it brings the frontmatter editor (yaml and js-yaml, ~370 KB of JavaScript) that
 * every reader of this module — a one-shot `k0maru recall --mode bm25` among them — parsed before (issue 17).
 */
export async function verifyNotes(...args: Parameters<Verify['verifyNotes']>): ReturnType<Verify['verifyNotes']> {
  return (await import('./verify')).verifyNotes(...args);
}

/** Stale notes among `docIds` (all when omitted). Empty when staleness was never computed. */
export function readStale(idx: IndexDb, docIds?: number[]): Map<number, StaleInfo> {
  const out = new Map<number, StaleInfo>();
  for (const n of readStaleRows(idx, docIds)) if (n.info) out.set(n.docId, n.info);
  return out;
}

export function listStale(idx: IndexDb): { docId: number; path: string; title: string; info: StaleInfo }[] {
  const stale = readStale(idx);
  if (!stale.size) return [];
  const ids = [...stale.keys()];
  const titles = new Map(idx.all(`SELECT id, path, title FROM documents WHERE id IN (${ids.map(() => '?').join(',')})`, ids).map((r) => [Number(r.id), { path: String(r.path), title: String(r.title) }]));
  return ids
    .filter((id) => titles.has(id))
    .map((id) => ({ docId: id, ...titles.get(id)!, info: stale.get(id)! }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** Off with its reason until the first update has run (or outside a repository). */
export function stalenessStatus(idx: IndexDb): StalenessStatus {
  return readStatus(idx) ?? { enabled: false, reason: 'staleness has not been computed yet (run a scan)' };
}
