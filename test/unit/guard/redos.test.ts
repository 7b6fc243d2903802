import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, MAX_HITS_PER_LINE } from '../../../src/core/guard/pattern';
import { prepareRules, runRules } from '../../../src/core/guard/engine';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { validateRegex } from '../../../src/core/guard/pattern';
import type { ChangedFile } from '../../../src/core/guard/types';

// Issue 13 defect 10: `deny: /\s+$/` against 500 added lines of 1,999 spaces + `x` took 17 s, because a "simple"
// regex ran on V8 for lines up to 2,000 characters and V8 retried the whole run of spaces from every start
// position. The timing lives in bench/guard.ts; here: which engine runs it, and that the results are right.

const adr = (rule: string) => parseAdrRules(`---\nstatus: accepted\n---\n# ADR-1: ws\n\n## Invariants\n\n- ${rule}\n`, 'adr-1.md', validateRegex);

function fileOf(path: string, texts: string[]): ChangedFile {
  return { path, status: 'modified', binary: false, added: texts.map((text, i) => ({ line: i + 1, text })), newSideLines: new Map(texts.map((t, i) => [i + 1, t])) };
}
const hunks = (f: ChangedFile) => [...f.newSideLines.values()];

test('deny: /\\s+$/ on 500 lines of 1,999 spaces + x runs on RE2 and finds exactly the trailing whitespace', async () => {
  const a = adr('deny: /\\s+$/');
  assert.equal(a.rules.length, 1);
  assert.equal(compilePattern(a.rules[0].pattern).engine, 're2', 'a regex V8 could backtrack on must not run on V8');
  const attack = Array.from({ length: 500 }, () => ' '.repeat(1999) + 'x');
  assert.deepEqual(await runRules([fileOf('src/a.ts', attack)], prepareRules(a.rules), hunks), []);
  // Same shape with trailing whitespace on every other line: each of those lines is reported once, at the run.
  const mixed = attack.map((l, i) => (i % 2 ? l + '  ' : l));
  const v = await runRules([fileOf('src/a.ts', mixed)], prepareRules(a.rules), hunks);
  assert.equal(v.length, 250);
  assert.deepEqual(v.slice(0, 2).map((x) => [x.line, x.column, x.match]), [[2, 2001, '  '], [4, 2001, '  ']]);
});

test('other regexes that backtrack on V8 go to RE2 too; fixed-width and ^-anchored ones stay on V8 with the same answers', () => {
  const line = ' '.repeat(1999) + 'x';
  for (const src of ['\\s+$', '\\s*$', ' +x$', '\\w*\\d', 'a.*b', '\\s+\\S{3}$', '[ \\t]+$']) {
    const p = compilePattern({ type: 'regex', source: src, ignoreCase: false });
    assert.equal(p.engine, 're2', src);
  }
  for (const [src, hits] of [['^\\s+$', 0], ['^\\s+x$', 1], ['\\sx', 1], ['^ {3}', 1]] as const) {
    const p = compilePattern({ type: 'regex', source: src, ignoreCase: false });
    assert.equal(p.engine, 'v8', src);
    assert.equal(p.matchLine(line).length, hits, src);
  }
});

test('one line yields at most MAX_HITS_PER_LINE matches, and RE2 copies a long line only a bounded number of times', () => {
  const lit = compilePattern({ type: 'literal', source: ' ', ignoreCase: false }).matchLine(' '.repeat(100_000));
  assert.equal(lit.length, MAX_HITS_PER_LINE);
  assert.deepEqual(lit.slice(0, 3).map((h) => h.index), [0, 1, 2]);
  const re2 = compilePattern({ type: 'regex', source: '(\\s|\\t)', ignoreCase: false });
  assert.equal(re2.engine, 're2');
  assert.equal(re2.matchLine(' '.repeat(10_000)).length, MAX_HITS_PER_LINE);
  // Each RE2 call copies the whole line: a 1,000,000-character line gives its first match, not a million.
  assert.deepEqual(re2.matchLine(' '.repeat(1_000_000)), [{ index: 0, length: 1 }]);
});

test('a needle-less RE2 regex matching every line of a diff larger than one RE2 chunk reports every line at its own number', async () => {
  const a = adr('deny: /(end|fin)$/ | anywhere');
  assert.equal(compilePattern(a.rules[0].pattern).engine, 're2');
  assert.equal(compilePattern(a.rules[0].pattern).needle, undefined);
  const texts = Array.from({ length: 3000 }, (_, i) => `${'y'.repeat(40)} line ${i} end`);
  const files = [fileOf('src/a.ts', texts.slice(0, 1700)), fileOf('src/b.ts', texts.slice(1700))];
  const v = await runRules(files, prepareRules(a.rules), hunks);
  assert.equal(v.length, 3000);
  assert.deepEqual(v.filter((x) => x.path === 'src/b.ts').slice(0, 2).map((x) => x.line), [1, 2]);
  assert.equal(v.find((x) => x.path === 'src/a.ts' && x.line === 1700)?.column, texts[1699].length - 2);
});
