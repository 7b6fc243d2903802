import { covers, disjoint } from './scopeCheck';
import type { RuleBlock, ScopeDecl } from './ruleSection';
import type { AdrRules, GuardDiagnostic, GuardRule, ScopeOrigin } from './types';

/**
 * How the scope levels of a rules section combine for one rule (rule modifier > list item > section line):
 * which section lines govern which list, and the nesting that makes a rule never fire outside its scope.
 */

function diag(out: AdrRules, code: GuardDiagnostic['code'], message: string, line: number): void {
  out.diagnostics.push({ code, message, adrPath: out.adrPath, line });
}

export interface ScopeCtx {
  /** Include sets of the list and section levels, innermost first. */
  includeSets: ScopeOrigin[][];
  exclude: ScopeOrigin[];
  /** A declared scope at one of the levels could not be read: the rules it governs are not checked. */
  disabled: boolean;
}

export function origins(decls: ScopeDecl[], polarity: 'include' | 'exclude'): ScopeOrigin[] {
  return decls.flatMap((d) => (polarity === 'include' ? d.include : d.exclude).map((u) => ({ level: d.level, polarity, written: u.written, globs: u.globs, line: d.line })));
}

/**
 * The section lines that govern each list of a block: the last group of lines above the list, else the first
 * group (a trailing "These rules apply to …" line). One sweep, so an ADR of alternating lines and lists stays linear.
 */
export function linesPerList(lines: RuleBlock['lines'], lists: number, polarity: 'include' | 'exclude'): ScopeDecl[][] {
  const has = (d: ScopeDecl) => (polarity === 'include' ? d.include.length > 0 : d.exclude.length > 0) || (unreadable(d) && d.polarity === polarity);
  const groups: { pos: number; decls: ScopeDecl[] }[] = [];
  for (const l of lines) {
    if (!has(l.decl)) continue;
    const last = groups[groups.length - 1];
    if (last && last.pos === l.pos) last.decls.push(l.decl);
    else groups.push({ pos: l.pos, decls: [l.decl] });
  }
  const out: ScopeDecl[][] = [];
  let g = -1;
  for (let li = 0; li < lists; li++) {
    while (g + 1 < groups.length && groups[g + 1].pos <= li) g++;
    out.push(groups.length ? groups[Math.max(g, 0)].decls : []);
  }
  return out;
}

export function unreadable(d: ScopeDecl): boolean {
  return !d.include.length && !d.exclude.length;
}

/**
 * Scopes nest: the rule's own `in:` narrows its list's `- scope:`, which narrows the section's `Applies to:`.
 * The innermost include becomes `include`, the wider ones `within` (the engine requires all); exclusions of
 * every level apply. Contradictions are reported; the rule keeps every scope, so it still fires nowhere outside.
 */
export function nestScopes(rule: GuardRule, ctx: ScopeCtx, out: AdrRules): void {
  const problems: string[] = [];
  let sets: string[][];
  if (rule.include.length) {
    // The rule's own `in:` decides for it (rule modifier > list item > section line); said out loud when it
    // leaves the section's declared scope.
    sets = [rule.include];
    for (const o of ctx.includeSets) {
      if (o[0].level !== 'section') continue;
      const globs = o.flatMap((x) => x.globs);
      if (disjoint(rule.include, globs)) {
        diag(out, 'rule.contradictory-scope', `rule '${rule.text}' has its own scope '${rule.include.join(', ')}' outside the section's '${globs.join(', ')}' (line ${o[0].line}); its own scope wins (rule modifier > list item > section line)`, rule.line);
      }
    }
  } else {
    // A list's `- scope:` and the section's `Applies to:` both hold: the engine requires every set.
    sets = ctx.includeSets.map((o) => o.flatMap((x) => x.globs));
    for (let i = 0; i < sets.length; i++) {
      for (let j = i + 1; j < sets.length; j++) {
        if (disjoint(sets[i], sets[j])) problems.push(`'${sets[i].join(', ')}' and '${sets[j].join(', ')}' have no file in common`);
      }
    }
  }
  rule.include = sets[0] ?? [];
  if (sets.length > 1) rule.within = sets.slice(1);
  rule.exclude = [...new Set([...rule.exclude, ...ctx.exclude.flatMap((o) => o.globs)])];
  const effective = [...(rule.scopes ?? []), ...(rule.scopes?.some((s) => s.polarity === 'include') ? [] : ctx.includeSets.flat()), ...ctx.exclude];
  if (effective.length) rule.scopes = effective;
  const covered = sets.find((set) => covers(rule.exclude, set));
  if (covered) problems.push(`every file of '${covered.join(', ')}' is also excluded (${rule.exclude.join(', ')})`);
  if (problems.length) {
    diag(out, 'rule.contradictory-scope', `rule '${rule.text}' can never fire: ${problems.join('; ')}. It is kept with all its scopes, so it fires nowhere; fix the ADR`, rule.line);
  }
}
