/**
 * Memory tiers. They tell an agent how much to trust a note and how long it lives:
 * - L3 — durable knowledge: decisions / ADRs, concept cards, skills and playbooks, the project's meta notes (vision).
 *        Loaded into every session (loadout) and enforced by the guard.
 * - L2 — episodic memory: AI session logs, journals, offload summaries. Recent ones go into the loadout.
 * - L1 — everything else in the vault (reference material, drafts). Found by recall only.
 */
export type Tier = 'L1' | 'L2' | 'L3';

const L3_CATEGORIES = new Set(['decision', 'adr', 'concept', 'card', 'skill', 'playbook', 'meta', 'vision', 'invariant', 'runbook']);
const L2_CATEGORIES = new Set(['log', 'journal', 'session', 'daily']);
const L3_FOLDER = /(^|\/)(\d+[_ -]?)?(architecture|adrs?|decisions?|cards?|concepts?|skills?|playbooks?|meta|runbooks?)(\/|$)/i;
const L2_FOLDER = /(^|\/)(\d+[_ -]?)?(ai[_ -]?logs?|logs?|journals?|daily|sessions?)(\/|$)/i;

export function tierFor(relPath: string, category: string | undefined): Tier {
  const cat = category?.toLowerCase();
  if (cat && L3_CATEGORIES.has(cat)) return 'L3';
  if (cat && L2_CATEGORIES.has(cat)) return 'L2';
  const dir = relPath.includes('/') ? relPath.slice(0, relPath.lastIndexOf('/')) : '';
  if (L3_FOLDER.test(dir)) return 'L3';
  if (L2_FOLDER.test(dir)) return 'L2';
  return 'L1';
}

/** Statuses whose notes no longer hold: their rules stop, they stop boosting neighbours. */
export function isRetiredStatus(status: string | undefined): boolean {
  return !!status && /^(superseded|deprecated|rejected|obsolete|retired|withdrawn)\b/i.test(status.trim());
}
