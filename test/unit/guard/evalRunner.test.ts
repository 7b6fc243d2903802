// Checks the guard evaluation runner itself (bench/guard-eval/runner.ts) on tiny cases today's grammar already
// supports: that it builds the repository the case describes, runs the real built CLI and hook, and counts true
// positives, false positives, false negatives and findings outside a declared scope correctly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { casePassed, loadCase, runCase, type EvalCase } from '../../../bench/guard-eval/runner';
import { summarize } from '../../../bench/guard-eval/report';
import { DIST_CLI, REPO, ensureBuilt } from '../../helpers/build';

const ADR = '---\nstatus: accepted\n---\n# ADR-1: No eval\n\n## Rules\n\n- deny: `eval(` | in: src/** | because: no eval\n- warn: `console.log(`\n';

function baseCase(over: Partial<EvalCase>): EvalCase {
  return {
    name: 'tiny', split: 'unit', style: 'explicit-dsl', origin: 'test',
    files: { '.k0maru/wiki/02_Architecture/adr-001.md': ADR, 'src/a.ts': 'export const a = 1;\n', 'tools/t.ts': 'export {};\n' },
    change: { 'src/a.ts': 'export const a = 1;\nexport const b = eval("2");\n', 'tools/t.ts': 'export const t = eval("3");\n' },
    expect: [{ path: 'src/a.ts', line: 2, kind: 'deny', severity: 'error', inferred: false, adr: 'adr-001' }],
    out_of_scope: ['tools/t.ts'],
    ...over,
  };
}

test('a correct expectation is one true positive, the hook blocks, the case passes', () => {
  ensureBuilt();
  const r = runCase(baseCase({}), DIST_CLI);
  assert.equal(r.crashed, false, r.crashDetail);
  assert.equal(r.tp.length, 1);
  assert.deepEqual([r.fp.length, r.fn.length, r.outsideScope.length], [0, 0, 0]);
  assert.equal(r.hookExit, 1);
  assert.equal(r.hookExpected, 1);
  assert.ok(casePassed(r));
});

test('a wrong line is one false positive and one false negative; a finding on an out-of-scope path is counted', () => {
  ensureBuilt();
  // The ADR scopes the rule to src/** with `in:`; the case (wrongly) declares src/a.ts out of scope and expects line 1.
  const c = baseCase({ expect: [{ path: 'src/a.ts', line: 1, kind: 'deny', severity: 'error', inferred: false, adr: 'ADR-001' }], out_of_scope: ['src/a.ts'] });
  const r = runCase(c, DIST_CLI);
  assert.equal(r.crashed, false, r.crashDetail);
  assert.equal(r.tp.length, 0);
  assert.deepEqual(r.fp.map((f) => `${f.path}:${f.line}`), ['src/a.ts:2']);
  assert.deepEqual(r.fn.map((f) => `${f.path}:${f.line}`), ['src/a.ts:1']);
  assert.equal(r.outsideScope.length, 1);
  assert.equal(casePassed(r), false);
  const s = summarize([r, runCase(baseCase({ name: 'tiny2' }), DIST_CLI)]);
  assert.equal(s.overall.tp, 1);
  assert.equal(s.overall.fp, 1);
  assert.equal(s.overall.fn, 1);
  assert.equal(s.overall.precision, 0.5);
  assert.equal(s.findingsOutsideScope, 1);
  assert.equal(s.goals.explicitPrecision1, false);
});

test('renames, deletions, binary files and a warning-only change: no blocking finding, the hook exits 0', () => {
  ensureBuilt();
  const c = baseCase({
    files: { '.k0maru/wiki/02_Architecture/adr-001.md': ADR, 'src/old.ts': 'export const x = eval("1");\n', 'src/gone.ts': 'eval("2");\n' },
    change: { 'src/new.ts': { rename: 'src/old.ts' }, 'src/gone.ts': null, 'src/logo.png': 'eval("4")', 'src/log.ts': 'console.log(1);\n' },
    binary: ['src/logo.png'],
    expect: [{ path: 'src/log.ts', line: 1, kind: 'warn', severity: 'warning', inferred: false, adr: 'adr-001' }],
    out_of_scope: [],
  });
  const r = runCase(c, DIST_CLI);
  assert.equal(r.crashed, false, r.crashDetail);
  assert.deepEqual(r.fp, []);
  assert.deepEqual(r.fn, []);
  assert.equal(r.hookExit, 0);
  assert.ok(casePassed(r));
});

test('every case file of the evaluation set loads and uses a documented style', () => {
  const styles = new Set(['explicit-dsl', 'scope-line', 'scope-list-item', 'folder-words', 'word-modifier', 'sentence-require', 'inferred-prose', 'no-fire-scope', 'no-fire-status', 'no-fire-comment', 'no-fire-string', 'no-fire-prose', 'no-fire-removed', 'no-fire-rename', 'no-fire-binary', 'multi-adr', 'adr-in-place', 'bad-input', 'i18n']);
  let n = 0;
  for (const split of ['tune', 'holdout']) {
    const dir = join(REPO, 'bench', 'guard-eval', 'cases', split);
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    } catch {
      continue;
    }
    for (const f of names) {
      const c = loadCase(join(dir, f));
      assert.ok(styles.has(c.style), `${split}/${f}: unknown style ${c.style}`);
      for (const o of c.out_of_scope ?? []) {
        const p = typeof o === 'string' ? o : o.path;
        assert.ok(p in c.change || p in c.files, `${split}/${f}: out_of_scope ${p} is not a file of the case`);
      }
      n++;
    }
  }
  assert.ok(n >= 16, `only ${n} cases`);
});

test('a CLI that does not answer with JSON is a crash: every expected finding is missed, nothing passes', () => {
  const r = runCase(baseCase({}), join(REPO, 'bench', 'guard-eval', 'no-such-cli.mjs'));
  assert.equal(r.crashed, true);
  assert.equal(r.fn.length, 1);
  assert.equal(casePassed(r), false);
  assert.deepEqual(summarize([r]).crashed.length, 1);
});
