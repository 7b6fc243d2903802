import type { IndexDb } from '../index/db';
import { readStale } from '../stale';
import type { LoadoutLine } from './budget';

/** A decision of the loadout whose anchored code changed since it was last true. */
export interface StaleDecision {
  path: string;
  reason: string;
  /** The commit it was last true at, abbreviated. */
  since: string;
}

/**
 * How far a stale decision sinks below the fresh ones of its kind. Decision priorities come in bands (ADRs the
 * current change activates 800 - i, ADRs with rules 600 - i, other decisions 400 - i, with i < 100), so a fresh
 * decision always keeps its line before a stale one of the same kind; an ADR the change activates still outranks
 * fresh ADRs it does not activate.
 */
export const STALE_DEMOTION = 100;

/** The longest reason a loadout line carries; the full one is in `k0maru stale` and recall's structured content. */
const MAX_REASON = 90;

/** The stale notes among `paths` (decisions the loadout may show), from what the last scan recorded. */
export function staleDecisions(index: IndexDb, paths: string[]): Map<string, StaleDecision> {
  const out = new Map<string, StaleDecision>();
  if (!paths.length) return out;
  const wanted = [...new Set(paths)];
  const ids = index.all(`SELECT id, path FROM documents WHERE path IN (${wanted.map(() => '?').join(',')})`, wanted);
  let stale;
  try {
    stale = readStale(index, ids.map((r) => Number(r.id)));
  } catch {
    return out; // staleness unknown: nothing is marked, never a false ⚠
  }
  for (const r of ids) {
    const s = stale.get(Number(r.id));
    if (s) out.set(String(r.path), { path: String(r.path), reason: s.reason, since: s.since });
  }
  return out;
}

/**
 * `- ⚠ [[adr-001]] (stale: `src/a.ts` changed in 3 commits since this note): rules…`, and without the reason as
 * the short form the budget falls back to before it drops lines.
 */
export function staleLine(name: string, body: string, s: StaleDecision, priority: number): LoadoutLine {
  return { text: `- ⚠ ${name} (stale: ${shortReason(s.reason)}): ${body}`, short: `- ⚠ ${name}: ${body}`, priority };
}

/** The reason's first clause: "`src/a.ts` changed in 3 commits since this note", without the commit detail. */
export function shortReason(reason: string): string {
  const flat = reason.replace(/\s+/g, ' ').trim();
  const cut = flat.length > 60 && flat.indexOf(' (') > 0 ? flat.slice(0, flat.indexOf(' (')) : flat;
  return cut.length > MAX_REASON ? `${cut.slice(0, MAX_REASON - 1)}…` : cut;
}
