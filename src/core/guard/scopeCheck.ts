import { globMatcher } from './engine';
import type { GuardDiagnostic, GuardRule, ScopeOrigin } from './types';

/**
 * Static checks on declared scopes. `disjoint` and `covers` are conservative: they answer yes only when it is
 * certain from the globs' literal parts, so a contradiction diagnostic is never a false alarm. (The engine
 * intersects nested scopes anyway, so a missed contradiction still never fires outside a declared scope.)
 */

const WILD = /[*?[{!]/;

function norm(g: string): string[] {
  const s = g.replace(/^\.\//, '');
  return (s.includes('/') ? s : `**/${s}`).split('/');
}

function literal(seg: string): boolean {
  return !WILD.test(seg);
}

/** The fixed end of a file-name segment (`*_spec.rb` → `_spec.rb`), or undefined when it can end in anything. */
function fixedSuffix(seg: string): string | undefined {
  if (seg === '**' || /[?[{!]/.test(seg)) return undefined;
  const star = seg.lastIndexOf('*');
  return star < 0 ? seg : seg.slice(star + 1);
}

function pairDisjoint(a: string, b: string): boolean {
  const x = norm(a);
  const y = norm(b);
  // Leading segments line up until the first `**` (a `*` still matches exactly one segment).
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === '**' || y[i] === '**') break;
    if (literal(x[i]) && literal(y[i]) && x[i] !== y[i]) return true;
    if (i === x.length - 1 || i === y.length - 1) break;
  }
  const sx = fixedSuffix(x[x.length - 1]);
  const sy = fixedSuffix(y[y.length - 1]);
  if (sx !== undefined && sy !== undefined && !sx.endsWith(sy) && !sy.endsWith(sx)) {
    // Both end in a file-name segment with fixed endings that cannot both hold (`*.ts` vs `*.go`).
    return true;
  }
  return false;
}

/** True when no path can match a glob of `a` and a glob of `b`. */
export function disjoint(a: string[], b: string[]): boolean {
  return a.length > 0 && b.length > 0 && a.every((g) => b.every((h) => pairDisjoint(g, h)));
}

/** True when every path matched by `inc` is certainly matched by `exc`. */
export function covers(exc: string[], inc: string[]): boolean {
  if (!inc.length || !exc.length) return false;
  return inc.every((i) => exc.some((e) => coversOne(e.replace(/^\.\//, ''), i.replace(/^\.\//, ''))));
}

function coversOne(e: string, i: string): boolean {
  if (e === i || e === '**' || e === '**/*' || e === '*') return true;
  if (e.endsWith('/**') && !WILD.test(e.slice(0, -3)) && i.startsWith(e.slice(0, -2))) return true;
  if (!e.includes('/') && i.includes('/') && i.slice(i.lastIndexOf('/') + 1) === e) return true;
  return false;
}

/** The declared include scopes of a rule, each with the ADR line that declares it. */
export function includeOrigins(r: GuardRule): ScopeOrigin[] {
  return r.scopes?.filter((s) => s.polarity === 'include')
    ?? (r.include.length ? [{ level: 'rule' as const, polarity: 'include' as const, written: r.include.join(', '), globs: r.include, line: r.line }] : []);
}

/** One key per distinct glob set (what scopeFiles.ts caches "matches something" for). */
export function globSetKey(globs: string[]): string {
  return globs.join('\0');
}

/**
 * `rule.scope-matches-nothing` for every declared include scope that matches none of the repository's files (a
 * typo'd folder, or the code the ADR was about moved or was deleted: the rule silently never fires). Pure: the
 * caller passes `git ls-files -co --exclude-standard` (scopeFiles.ts), or for the cached path a predicate over glob
 * sets. One diagnostic per ADR line and scope, naming the rule(s) it governs, the ADR as a link, and the fix.
 * A diagnostic, never a violation: it blocks no commit.
 */
export function unmatchedScopeDiagnostics(rules: GuardRule[], files: string[] | ((globs: string[]) => boolean)): GuardDiagnostic[] {
  const memo = new Map<string, boolean>();
  const matchesAny = typeof files === 'function' ? files : (globs: string[]): boolean => {
    const key = globSetKey(globs);
    let hit = memo.get(key);
    if (hit === undefined) {
      const m = globMatcher(globs);
      hit = !!m && files.some((f) => m(f));
      memo.set(key, hit);
    }
    return hit;
  };
  const found = new Map<string, { rule: GuardRule; scope: ScopeOrigin; others: number }>();
  for (const r of rules) {
    for (const o of includeOrigins(r)) {
      const key = `${r.adrPath}\0${o.line}\0${o.written}`;
      const seen = found.get(key);
      if (seen) {
        seen.others++;
        continue;
      }
      if (!o.globs.length || matchesAny(o.globs)) continue;
      found.set(key, { rule: r, scope: o, others: 0 });
    }
  }
  return [...found.values()].map(({ rule, scope, others }) => ({
    code: 'rule.scope-matches-nothing' as const,
    message:
      `rule scope matches no files: '${scope.written}' (${scope.globs.join(', ')}) matches no file of the repository, so rule '${rule.text}'` +
      `${others ? ` (+${others} more governed by this scope)` : ''} of [[${adrName(rule.adrPath)}]] (${rule.adrPath}:${scope.line}) never fires. ` +
      `Remediation: point the scope at where that code lives now (it may have moved or been deleted), or retire the rule (supersede the ADR) if the code is gone.`,
    adrPath: rule.adrPath,
    line: scope.line,
  }));
}

function adrName(adrPath: string): string {
  return adrPath.slice(adrPath.lastIndexOf('/') + 1).replace(/\.(md|markdown)$/i, '');
}
