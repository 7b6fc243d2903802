import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { validateRegex } from '../../../src/core/guard/pattern';
import { readWordMods } from '../../../src/core/guard/wordModifiers';
import type { GuardRule } from '../../../src/core/guard/types';

function rulesOf(items: string[]) {
  return parseAdrRules(`# ADR\n\n## Rules\n\n${items.join('\n')}\n`, 'adr/0002-w.md', validateRegex);
}

/** The fields a modifier can change, for comparing a word form with its `| modifier` twin. */
function shape(r: GuardRule) {
  return { kind: r.kind, severity: r.severity, pattern: r.pattern, context: r.context, include: r.include, exclude: r.exclude, langs: r.langs, window: r.window };
}

test('each word modifier means the same as its | modifier', () => {
  const pairs: [string, string][] = [
    ['- deny: `select *` (case-insensitive)', '- deny: `select *` | case-insensitive'],
    ['- deny: `select *` (ignore case)', '- deny: `select *` | ignore-case'],
    ['- deny: `\\bvar\\s+\\w+` (regex)', '- deny: /\\bvar\\s+\\w+/'],
    ['- deny: `time.sleep(` (warning)', '- warn: `time.sleep(`'],
    ['- deny: `time.sleep(` (advisory)', '- warn: `time.sleep(`'],
    ['- deny: `time.sleep(` (warn only)', '- warn: `time.sleep(`'],
    ['- deny: `HACK` (comments too)', '- deny: `HACK` | anywhere'],
    ['- deny: `fetch(` (no strings)', '- deny: `fetch(` | no-strings'],
    ['- deny: `x` (in `src/**`)', '- deny: `x` | in: src/**'],
    ['- deny: `x` (except `**/*.test.ts`)', '- deny: `x` | except: **/*.test.ts'],
    ['- deny: `x` (python only)', '- deny: `x` | lang: python'],
    ['- deny: `x` (in: src/**)', '- deny: `x` | in: src/**'],
  ];
  for (const [words, piped] of pairs) {
    const a = rulesOf([words, piped]);
    assert.deepEqual(a.diagnostics.filter((d) => d.code !== 'rule.in-example'), [], words);
    assert.equal(a.rules.length, 2, words);
    const [w, p] = a.rules.map(shape);
    assert.deepEqual({ ...w, context: w.context }, { ...p, context: p.context }, words);
  }
});

test('several modifiers in one parenthesis, several parentheses, before or after the | modifiers', () => {
  const a = rulesOf([
    '- deny: `TRUNCATE TABLE` (ignore case, advisory) | because: Delete in batches.',
    '- deny: `TRUNCATE TABLE` (ignore case) (advisory) | because: Delete in batches.',
    '- deny: `TRUNCATE TABLE` | because: Delete in batches. (case-insensitive; warning)',
    '- deny: `debugger` (regex, comments too, case-insensitive)',
  ]);
  assert.deepEqual(a.diagnostics, []);
  for (const r of a.rules.slice(0, 3)) {
    assert.equal(r.kind, 'warn');
    assert.equal(r.pattern.ignoreCase, true);
    assert.equal(r.remediation, 'Delete in batches.');
  }
  assert.deepEqual(a.rules[3].pattern, { type: 'regex', source: 'debugger', ignoreCase: true });
  assert.equal(a.rules[3].context, 'anywhere');
});

test('bare patterns: a known trailing parenthesis is a modifier, an unknown one stays part of the pattern', () => {
  const a = rulesOf(['- deny: SELECT * FROM (case-insensitive)', '- deny: \\bfetch\\( (regex)', '- deny: console.log(x) (debug)', '- deny: foo(bar)']);
  assert.deepEqual(a.diagnostics, []);
  assert.deepEqual(a.rules[0].pattern, { type: 'literal', source: 'SELECT * FROM', ignoreCase: true });
  assert.deepEqual(a.rules[1].pattern, { type: 'regex', source: '\\bfetch\\(', ignoreCase: false });
  assert.equal(a.rules[2].pattern.source, 'console.log(x) (debug)');
  assert.equal(a.rules[3].pattern.source, 'foo(bar)');
});

test('(warning) on a require rule makes it advisory; (blocking) on a warn rule makes it deny', () => {
  const a = rulesOf(['- require: `timeout=` | when: `requests.get(` (warning)', '- warn: `print(` (blocking)']);
  assert.deepEqual(a.diagnostics, []);
  assert.equal(a.rules[0].kind, 'require');
  assert.equal(a.rules[0].severity, 'warning');
  assert.equal(a.rules[1].kind, 'deny');
});

test('a word modifier that is not understood: ignored with a diagnostic, or — if it reads like a scope — the rule is not checked', () => {
  const a = rulesOf(['- deny: `eval(` (see RFC 12)', '- deny: `eval(` (only in the old parts)', '- deny: `eval(` because it runs arbitrary code']);
  assert.deepEqual(a.diagnostics.map((d) => [d.code, d.line]), [['rule.bad-modifier', 5], ['rule.ambiguous', 6]]);
  assert.equal(a.rules.length, 2);
  assert.equal(a.rules[0].line, 5);
  assert.deepEqual(a.rules[0].include, []);
  assert.equal(a.rules[1].remediation, 'it runs arbitrary code');
});

test('readWordMods vocabulary', () => {
  assert.deepEqual(readWordMods('case insensitive').mods, ['case-insensitive']);
  assert.equal(readWordMods('regexp').regex, true);
  assert.equal(readWordMods('non-blocking').severity, 'warning');
  assert.deepEqual(readWordMods('including comments').mods, ['anywhere']);
  assert.deepEqual(readWordMods('same line').window, { kind: 'line' });
  const s = readWordMods('under `web/components`');
  assert.deepEqual(s.include.map((u) => u.globs), [['web/components', 'web/components/**']]);
  assert.equal(readWordMods('mostly harmless').scopeish, false);
  assert.equal(readWordMods('not in the generated folder').scopeish, true);
});

test('looser wording of the same modifiers', () => {
  const a = rulesOf(['- deny: `a` (non-blocking warning)', '- deny: `b` (matches any case)', '- deny: `c` (comments as well)', '- deny: `d` (regular-expression pattern)']);
  assert.deepEqual(a.diagnostics, []);
  assert.equal(a.rules[0].kind, 'warn');
  assert.equal(a.rules[1].pattern.ignoreCase, true);
  assert.equal(a.rules[2].context, 'anywhere');
  assert.equal(a.rules[3].pattern.type, 'regex');
});
