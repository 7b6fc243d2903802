import { parseAdrRules } from '../guard/ruleParser';
import type { AdrRules, GuardRule } from '../guard/types';
import { parseAdrId } from './resolveNote';

export interface DroppedRule {
  adrId: string;
  adrPath: string;
  ruleId: string;
  /** The rule as written (`deny: …`). */
  text: string;
}

const stem = (p: string) => p.slice(p.lastIndexOf('/') + 1).replace(/\.md$/i, '').toLowerCase();
const shape = (r: GuardRule) => `${r.kind}\0${r.pattern.type}\0${r.pattern.source}\0${r.when?.source ?? ''}`;

/** Does a `supersedes` reference (ADR id, title, file name or vault path) name this ADR? */
function names(ref: string, a: AdrRules): boolean {
  const r = ref.trim().replace(/^\[\[|\]\]$/g, '').replace(/[|#].*$/, '').toLowerCase();
  if (r === a.adrPath.toLowerCase() || stem(r) === stem(a.adrPath) || r === a.adrId.toLowerCase() || r === a.title.toLowerCase()) return true;
  // `ADR-001` / `#1` / `1` name the ADR numbered 1 (its id or file name starts with that number), as flush resolves them.
  const n = parseAdrId(r);
  return n !== undefined && [a.adrId, stem(a.adrPath)].some((x) => Number(FILE_NUMBER.exec(x)?.[1]) === n);
}

const FILE_NUMBER = /^(?:adr[-_ ]?)?0*(\d{1,5})(?=$|[-_ .:])/i;

/**
 * The rules that stop applying when a new decision with `content` supersedes the ADRs `supersedes` names: every
 * rule of those (active) ADRs that the new note does not carry over — same id, or the same kind and pattern.
 * Superseding turns the old ADR's rules off, so a replacement without them silently lifts the guard; the Flush
 * wizard says which ones before it writes.
 */
export function droppedRules(current: readonly AdrRules[], supersedes: readonly string[], content: string): DroppedRule[] {
  const olds = current.filter((a) => a.active && a.rules.length && supersedes.some((ref) => names(ref, a)));
  if (!olds.length) return [];
  const next = parseAdrRules(content, 'new-decision.md').rules;
  const ids = new Set(next.map((r) => r.id.toLowerCase()));
  const shapes = new Set(next.map(shape));
  return olds.flatMap((a) =>
    a.rules
      .filter((r) => !ids.has(r.id.toLowerCase()) && !shapes.has(shape(r)))
      .map((r) => ({ adrId: a.adrId, adrPath: a.adrPath, ruleId: r.id, text: r.text })),
  );
}

/** One line a person reads: which rules of which ADR stop applying. */
export function describeDropped(dropped: readonly DroppedRule[]): string {
  const byAdr = new Map<string, string[]>();
  for (const d of dropped) byAdr.set(d.adrId, [...(byAdr.get(d.adrId) ?? []), d.ruleId]);
  const parts = [...byAdr].map(([adr, ids]) => `${adr}: ${ids.join(', ')}`);
  return `${dropped.length} rule(s) stop applying when the new decision supersedes them (${parts.join('; ')}). Copy the ones that still hold into its "## Invariants" section.`;
}

/**
 * The body a new decision starts from: the usual ADR sections and an empty `## Invariants` section for the rules
 * the guard should check (docs/guard.md). The hint is an HTML comment without a list item, so it is never read
 * as a rule or a malformed one.
 */
export function decisionTemplate(summary: string): string {
  return [
    '## Context',
    '',
    summary.trim() || '<!-- What forces this decision? -->',
    '',
    '## Decision',
    '',
    '<!-- What we do from now on. -->',
    '',
    '## Consequences',
    '',
    '<!-- What gets easier, what gets harder. -->',
    '',
    '## Invariants',
    '',
    '<!-- The rules the Living ADR Guard checks on every save and commit, one list item each (deny / warn / require); see docs/guard.md "Writing rules". -->',
    '',
  ].join('\n');
}
