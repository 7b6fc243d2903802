import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { validateRegex } from '../../../src/core/guard/pattern';
import { readRequireSentence, windowFromWords } from '../../../src/core/guard/sentenceRequire';

function rulesOf(items: string[]) {
  return parseAdrRules(`# ADR\n\n## Rules\n\n${items.join('\n')}\n`, 'adr/0003-s.md', validateRegex);
}

test('the issue\'s three sentences become require rules with the right trigger, companion and window', () => {
  const a = rulesOf([
    '- require: every `subprocess.run(` call passes `check=True`',
    '- require: a `/* trusted */` comment on the line directly above every `innerHTML =`',
    '- require: a `// reason:` on the same line as every `eslint-disable`',
  ]);
  assert.deepEqual(a.diagnostics, []);
  const got = a.rules.map((r) => [r.kind, r.when?.source, r.pattern.source, r.window]);
  assert.deepEqual(got, [
    ['require', 'subprocess.run(', 'check=True', { kind: 'statement' }],
    ['require', 'innerHTML =', '/* trusted */', { kind: 'above', lines: 1 }],
    ['require', 'eslint-disable', '// reason:', { kind: 'line' }],
  ]);
  assert.equal(a.rules[0].text, 'require: check=True when subprocess.run(');
  assert.equal(a.rules[2].context, 'anywhere', 'a lint-suppression trigger lives in comments, so it is matched there');
  assert.equal(a.rules[1].context, 'code');
});

test('several triggers make one rule each; "or" between required parts is either', () => {
  const a = rulesOf([
    '- require: every `axios.get(`, `axios.post(` or `axios.delete(` call passes `timeout:`',
    '- require: `signal:` or `timeout:` in every new `fetch(` call',
  ]);
  assert.deepEqual(a.diagnostics, []);
  assert.deepEqual(a.rules.map((r) => [r.id, r.when?.source, r.pattern.source]), [
    ['0003-s#1.1', 'axios.get(', 'timeout:'],
    ['0003-s#1.2', 'axios.post(', 'timeout:'],
    ['0003-s#1.3', 'axios.delete(', 'timeout:'],
    ['0003-s#2', 'fetch(', 'signal:|timeout:'],
  ]);
  assert.equal(a.rules[3].pattern.type, 'regex');
});

test('position words choose the window', () => {
  const cases: [string, unknown][] = [
    ['- require: `// SAFETY:` within 2 lines above every `unsafe {`', { kind: 'above', lines: 2 }],
    ['- require: `// SAFETY:` before every `unsafe {`', { kind: 'above', lines: 3 }],
    ['- require: `policy/v1` in `apiVersion:` lines', { kind: 'line' }],
    ['- require: `\'use strict\'` in the file when `module.exports` is added', { kind: 'file' }],
    ['- require: `timeout=` when calling `requests.get(` with it in the call', { kind: 'statement' }],
    ['- require: `check=True` for every `subprocess.run(`', { kind: 'statement' }],
    ['- require: `rel="noopener"` on every `target="_blank"` link', { kind: 'statement' }],
    ['- require: files containing `apiVersion: apps/v1` must also contain `kind: Deployment`', { kind: 'file' }],
    ['- require: `import logging` at the top of every file that uses `logger.`', { kind: 'file' }],
    ['- require: every `http.Get(` must be followed by `defer resp.Body.Close()` within 5 lines', { kind: 'below', lines: 5 }],
    ['- require: every `unsafe {` is preceded by `// SAFETY:` within 2 lines', { kind: 'above', lines: 2 }],
  ];
  for (const [line, win] of cases) {
    const a = rulesOf([line]);
    assert.deepEqual(a.diagnostics, [], line);
    assert.deepEqual(a.rules[0]?.window, win, line);
  }
  assert.deepEqual(windowFromWords('on the previous line'), { window: { kind: 'above', lines: 1 } });
  assert.ok(windowFromWords('on the same line and in the file').conflict);
});

test('scope phrases inside the sentence scope the rule, and "because" gives the remediation', () => {
  const a = rulesOf(['- require: every `fetch(` in `web/` passes `signal:` because requests must be cancellable']);
  assert.deepEqual(a.diagnostics, []);
  assert.deepEqual(a.rules[0].include, ['web/**']);
  assert.equal(a.rules[0].remediation, 'requests must be cancellable');
});

test('sentences that cannot be read are rule.ambiguous at their line, with the explicit form; never a silent drop', () => {
  const items = [
    '- require: `timeout=` in the call', // 5: one code span
    '- require: `a` and `b` somewhere', // 6: no trigger word
    '- require: no `print(` in every `handler(`', // 7: a prohibition
    '- require: `x` on the same line in the file as every `y`', // 8: two windows
    '- require: a pinned version in every Dockerfile', // 9: no code span
    '- require: every `open(` has `encoding=` and also `newline=` elsewhere', // 10: two separate requirements
  ];
  const a = rulesOf(items);
  assert.equal(a.rules.length, 0);
  assert.deepEqual(a.diagnostics.map((d) => [d.code, d.line]), [5, 6, 7, 8, 9, 10].map((l) => ['rule.ambiguous', l]));
  for (const d of a.diagnostics) assert.match(d.message, /Write it explicitly: - require: `.*` \| when: `.*`/);
  assert.match(a.diagnostics[0].message, /one code span only/);
});

test('explicit require rules are untouched by the sentence reader', () => {
  const a = rulesOf(['- require: `timeout=` | when: `requests.get(` | window: line', '- require: `x`']);
  assert.equal(a.rules.length, 1);
  assert.deepEqual(a.rules[0].window, { kind: 'line' });
  assert.deepEqual(a.diagnostics.map((d) => d.code), ['rule.missing-when']);
});

test('readRequireSentence on its own', () => {
  const r = readRequireSentence('every `subprocess.run(` call passes `check=True`');
  assert.equal(r.error, undefined);
  assert.equal(r.rules.length, 1);
  assert.ok(readRequireSentence('`a`').error);
});
