// Aggregates case results into the figures issue 12 asks for: precision / recall per style and per split,
// explicit vs inferred, hook agreement, diagnostics, and findings outside a declared scope.
import { casePassed, type CaseResult } from './runner';

export interface Counts {
  cases: number;
  passed: number;
  tp: number;
  fp: number;
  fn: number;
  /** null when nothing was reported (precision) / nothing expected (recall): no evidence either way. */
  precision: number | null;
  recall: number | null;
}

export interface Summary {
  cases: number;
  passed: number;
  crashed: string[];
  overall: Counts;
  bySplit: Record<string, Counts>;
  byStyle: Record<string, Counts & { bySplit: Record<string, Counts> }>;
  /** By the `inferred` flag of the expected (TP, FN) or reported (FP) finding. */
  explicit: Counts;
  inferred: Counts;
  inferredBySplit: Record<string, Counts>;
  explicitBySplit: Record<string, Counts>;
  findingsOutsideScope: number;
  outsideScopeCases: string[];
  hook: { agree: number; disagree: string[] };
  diagnostics: { expected: number; found: number; missing: string[] };
  /** The goals are judged on the styles issue 12 lists; `i18n` (non-English ADRs) is reported but not part of them. */
  goalBasis: { explicit: Counts; inferred: Counts; excludedStyles: string[] };
  goals: { explicitPrecision1: boolean; explicitRecall1: boolean; zeroOutsideScope: boolean; inferredRecall08: boolean; inferredPrecision095: boolean };
}

const ratio = (a: number, b: number) => (b === 0 ? null : Math.round((a / b) * 1000) / 1000);

function counts(rs: CaseResult[], filter?: (inferred: boolean) => boolean): Counts {
  let tp = 0, fp = 0, fn = 0;
  const keep = filter ?? (() => true);
  for (const r of rs) {
    tp += r.tp.filter((t) => keep(t.expected.inferred)).length;
    fp += r.fp.filter((f) => keep(f.inferred)).length;
    fn += r.fn.filter((e) => keep(e.inferred)).length;
  }
  return { cases: rs.length, passed: rs.filter(casePassed).length, tp, fp, fn, precision: ratio(tp, tp + fp), recall: ratio(tp, tp + fn) };
}

function groupBy<T>(xs: T[], key: (x: T) => string): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const x of xs) (out[key(x)] ??= []).push(x);
  return out;
}

const BEYOND_ISSUE = ['i18n'];

export function summarize(results: CaseResult[]): Summary {
  const bySplitRs = groupBy(results, (r) => r.split);
  const byStyleRs = groupBy(results, (r) => r.style);
  const mapValues = <A, B>(o: Record<string, A>, f: (a: A) => B) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, f(v)]));
  const explicit = counts(results, (i) => !i);
  const inferred = counts(results, (i) => i);
  const basis = results.filter((r) => !BEYOND_ISSUE.includes(r.style));
  const gExplicit = counts(basis, (i) => !i);
  const gInferred = counts(basis, (i) => i);
  const outside = results.flatMap((r) => r.outsideScope.map(() => r.name));
  return {
    cases: results.length,
    passed: results.filter(casePassed).length,
    crashed: results.filter((r) => r.crashed).map((r) => `${r.split}/${r.name}: ${r.crashDetail ?? ''}`),
    overall: counts(results),
    bySplit: mapValues(bySplitRs, (rs) => counts(rs)),
    byStyle: mapValues(byStyleRs, (rs) => ({ ...counts(rs), bySplit: mapValues(groupBy(rs, (r) => r.split), (x) => counts(x)) })),
    explicit,
    inferred,
    explicitBySplit: mapValues(bySplitRs, (rs) => counts(rs, (i) => !i)),
    inferredBySplit: mapValues(bySplitRs, (rs) => counts(rs, (i) => i)),
    findingsOutsideScope: outside.length,
    outsideScopeCases: [...new Set(outside)],
    hook: { agree: results.filter((r) => r.hookExit === r.hookExpected).length, disagree: results.filter((r) => r.hookExit !== r.hookExpected).map((r) => `${r.split}/${r.name}: exit ${r.hookExit}, expected ${r.hookExpected}`) },
    diagnostics: {
      expected: results.reduce((n, r) => n + r.diagnosticsExpected, 0),
      found: results.reduce((n, r) => n + r.diagnosticsExpected - r.missingDiagnostics.length, 0),
      missing: results.flatMap((r) => r.missingDiagnostics.map((d) => `${r.split}/${r.name}: ${d.code ?? 'any code'} @ ${d.adr}:${JSON.stringify(d.line ?? 'any')}`)),
    },
    goalBasis: { explicit: gExplicit, inferred: gInferred, excludedStyles: BEYOND_ISSUE },
    goals: {
      explicitPrecision1: gExplicit.precision === 1 || (gExplicit.precision === null && gExplicit.fp === 0),
      explicitRecall1: gExplicit.recall === 1,
      zeroOutsideScope: outside.length === 0,
      inferredRecall08: (gInferred.recall ?? 0) >= 0.8,
      inferredPrecision095: (gInferred.precision ?? 0) >= 0.95,
    },
  };
}

const fmt = (x: number | null) => (x === null ? '  —  ' : x.toFixed(3));

function row(label: string, c: Counts): string {
  return `${label.padEnd(28)} ${String(c.cases).padStart(5)} ${String(c.passed).padStart(6)} ${String(c.tp).padStart(4)} ${String(c.fp).padStart(4)} ${String(c.fn).padStart(4)}  ${fmt(c.precision)}  ${fmt(c.recall)}`;
}

export function formatTable(s: Summary): string {
  const head = `${'style / split'.padEnd(28)} ${'cases'.padStart(5)} ${'passed'.padStart(6)} ${'TP'.padStart(4)} ${'FP'.padStart(4)} ${'FN'.padStart(4)}  ${'prec.'.padEnd(5)}  recall`;
  const lines = [head, '-'.repeat(head.length)];
  for (const [style, c] of Object.entries(s.byStyle)) {
    lines.push(row(style, c));
    for (const [split, cs] of Object.entries(c.bySplit)) lines.push(row(`  ${split}`, cs));
  }
  lines.push('-'.repeat(head.length));
  for (const [split, c] of Object.entries(s.bySplit)) lines.push(row(`split ${split}`, c));
  lines.push(row('explicit rules', s.explicit));
  for (const [split, c] of Object.entries(s.explicitBySplit)) lines.push(row(`  explicit ${split}`, c));
  lines.push(row('inferred rules', s.inferred));
  for (const [split, c] of Object.entries(s.inferredBySplit)) lines.push(row(`  inferred ${split}`, c));
  lines.push(row('ALL', s.overall));
  lines.push('');
  lines.push(`findings outside a declared scope: ${s.findingsOutsideScope}${s.outsideScopeCases.length ? ` (${s.outsideScopeCases.join(', ')})` : ''}`);
  lines.push(`hook pre-commit exit code as expected: ${s.hook.agree}/${s.cases}`);
  lines.push(`expected diagnostics found: ${s.diagnostics.found}/${s.diagnostics.expected}`);
  if (s.crashed.length) lines.push(`crashed / no JSON: ${s.crashed.length}`);
  lines.push(row('explicit (goal basis)', s.goalBasis.explicit));
  lines.push(row(`inferred (goal basis)`, s.goalBasis.inferred));
  lines.push(`goal basis: every style except ${s.goalBasis.excludedStyles.join(', ')} (beyond the styles issue 12 lists)`);
  const g = s.goals;
  const mark = (b: boolean) => (b ? 'met' : 'MISSED');
  lines.push(`goals: explicit precision 1.0 ${mark(g.explicitPrecision1)}, explicit recall 1.0 ${mark(g.explicitRecall1)}, zero outside scope ${mark(g.zeroOutsideScope)}, inferred recall ≥ 0.8 ${mark(g.inferredRecall08)}, inferred precision ≥ 0.95 ${mark(g.inferredPrecision095)}`);
  return lines.join('\n');
}
