// Guard evaluation set (issue 12 item 7): `node esbuild.mjs && npx tsx bench/guardEval.ts`.
// Runs every case of bench/guard-eval/cases/{tune,holdout} in a throw-away git repository with the real built CLI
// (`guard --staged --json` and `hook pre-commit`), reports precision / recall per style and split, explicit vs
// inferred, findings outside a declared scope, and the corpus figures; writes bench/results/guardEval.json.
// Options: --only <substring> (case file names), --verbose (every mismatch), --no-corpus.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { corpusFigures } from './guard-eval/corpus';
import { formatTable, summarize } from './guard-eval/report';
import { casePassed, loadCase, runCase, type CaseResult, type EvalCase } from './guard-eval/runner';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.mjs');
const CASES = join(__dirname, 'guard-eval', 'cases');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function loadAll(): EvalCase[] {
  const out: EvalCase[] = [];
  for (const split of ['tune', 'holdout', 'fresh']) {
    const dir = join(CASES, split);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (/\.ya?ml$/.test(f)) out.push(loadCase(join(dir, f)));
  }
  return out;
}

function describe(r: CaseResult): string {
  const parts: string[] = [];
  if (r.crashed) parts.push(`crashed: ${r.crashDetail}`);
  for (const f of r.fp) parts.push(`FP ${f.path}:${f.line} ${f.kind}/${f.severity}${f.inferred ? '/inferred' : ''} [${f.adrId}] ${f.rule}${f.adrLine ? ` (ADR line ${f.adrLine})` : ''}${f.remediation ? ` — remediation: ${f.remediation}` : ''}`);
  for (const e of r.fn) parts.push(`FN ${e.path}:${e.line} ${JSON.stringify(e.kind)}/${e.severity}${e.inferred ? '/inferred' : ''} [${e.adr}]${e.adr_line ? ` (ADR line ${e.adr_line})` : ''}${e.remediation ? ` — remediation ⊇ "${e.remediation}"` : ''}`);
  for (const d of r.missingDiagnostics) parts.push(`missing diagnostic ${d.code ?? '(any)'} ${d.adr}:${JSON.stringify(d.line ?? 'any')}`);
  if (r.hookExit !== r.hookExpected) parts.push(`hook pre-commit exit ${r.hookExit}, expected ${r.hookExpected}`);
  if (!parts.length) return '';
  const got = r.diagnostics.map((d) => `${d.code}@${d.adrPath}:${d.line}`).join(', ');
  return parts.join('\n    ') + (r.missingDiagnostics.length && got ? `\n    diagnostics reported: ${got}` : '');
}

function main(): void {
  if (!existsSync(CLI)) {
    console.error('dist/cli.mjs is missing: run `node esbuild.mjs` first');
    process.exit(2);
  }
  const only = arg('--only');
  const verbose = process.argv.includes('--verbose');
  const cases = loadAll().filter((c) => !only || c.name.includes(only));
  const t0 = performance.now();
  const results: CaseResult[] = [];
  for (const c of cases) {
    const r = runCase(c, CLI);
    results.push(r);
    const d = describe(r);
    if (verbose || !casePassed(r)) console.log(`${casePassed(r) ? 'ok  ' : 'FAIL'} ${c.split}/${c.name} (${Math.round(r.ms)} ms)${d ? '\n    ' + d : ''}`);
  }
  const summary = summarize(results);
  console.log('\n' + formatTable(summary));
  const corpus = process.argv.includes('--no-corpus') ? undefined : corpusFigures();
  if (corpus) {
    if ('missing' in corpus) console.log(`\ncorpus: ${corpus.corpus} not found`);
    else
      console.log(
        `\ncorpus (${corpus.files} files, ${corpus.activeAdrs} active): ${corpus.adrsWithInferredRules} yield inferred rules ` +
          `(${corpus.activeAdrsWithInferredRules} of them active), ${corpus.inferredRules} inferred rules; ${corpus.adrsWithExplicitRules} with explicit rules; ` +
          `parse ${corpus.parseMsTotal} ms total, slowest ${corpus.slowestFile?.path} ${corpus.slowestFile?.ms} ms; crashes ${corpus.crashes.length}`,
      );
  }
  const out = {
    generatedAt: new Date().toISOString(),
    command: 'node esbuild.mjs && npx tsx bench/guardEval.ts',
    machine: { node: process.version, cpus: cpus().length, loadavg: loadavg().map((x) => Math.round(x * 100) / 100) },
    wallMs: Math.round(performance.now() - t0),
    filter: only ?? null,
    summary,
    corpus,
    cases: results.map((r) => ({ case: `${r.split}/${r.name}`, style: r.style, passed: casePassed(r), tp: r.tp.length, fp: r.fp.length, fn: r.fn.length, hook: r.hookExit, hookExpected: r.hookExpected, crashed: r.crashed, ms: Math.round(r.ms) })),
    failingCases: results.filter((r) => !casePassed(r)).map((r) => ({ case: `${r.split}/${r.name}`, style: r.style, detail: describe(r).split('\n    ') })),
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  if (!only) writeFileSync(join(__dirname, 'results', 'guardEval.json'), JSON.stringify(out, null, 2) + '\n');
  console.log(only ? '\n(--only: results file not written)' : '\nwrote bench/results/guardEval.json');
}

main();
