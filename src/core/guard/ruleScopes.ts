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

/**
 * Section lines that govern the same list, read as a reader would: each line is its own condition, so two
 * "Applies to" lines intersect ("Applies to: `services/**`" then "Only in `*.go` files" narrows). When two of them
 * share no file, or a "Does not apply to" line excludes everything an "Applies to" line includes, the ADR
 * contradicts itself: `rule.contradictory-scope` at the later line, and the rules fire nowhere (never outside
 * either scope). `seen` keeps one diagnostic per line across the lists the lines govern.
 */
export function sectionLevels(inc: ScopeDecl[], exc: ScopeDecl[], out: AdrRules, seen: Set<ScopeDecl>): ScopeDecl[][] {
  const byLine = new Map<number, ScopeDecl[]>();
  for (const d of inc) byLine.set(d.line, [...(byLine.get(d.line) ?? []), d]);
  const levels = [...byLine.values()];
  const globs = (ds: ScopeDecl[]) => ds.flatMap((d) => d.include.flatMap((u) => u.globs));
  for (let i = 1; i < levels.length; i++) {
    const later = levels[i][0];
    for (let j = 0; j < i; j++) {
      if (seen.has(later) || !disjoint(globs(levels[j]), globs(levels[i]))) continue;
      seen.add(later);
      diag(out, 'rule.contradictory-scope', `scope line '${later.written}' shares no file with line ${levels[j][0].line} ('${levels[j][0].written}'): both govern the same rules, so they must both hold and the rules fire nowhere; fix the ADR`, later.line);
    }
  }
  for (const e of exc) {
    if (seen.has(e) || e.level !== 'section') continue;
    const excluded = e.exclude.flatMap((u) => u.globs);
    const hit = levels.find((l) => covers(excluded, globs(l)));
    if (!hit) continue;
    seen.add(e);
    diag(out, 'rule.contradictory-scope', `scope line '${e.written}' excludes every file that line ${hit[0].line} ('${hit[0].written}') applies to: the rules it governs fire nowhere; fix the ADR`, e.line);
  }
  return levels;
}
