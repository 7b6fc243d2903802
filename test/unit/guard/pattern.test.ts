import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, requiredLiteral, validateRegex } from '../../../src/core/guard/pattern';

test('required literal extraction is conservative', () => {
  assert.equal(requiredLiteral('fetch\\('), 'fetch(');
  assert.equal(requiredLiteral('\\bconsole\\.(log|debug)\\('), 'console.');
  assert.equal(requiredLiteral('ab*cdef'), 'cdef');
  assert.equal(requiredLiteral('ab+c'), 'ab');
  assert.equal(requiredLiteral('a|b'), undefined);
  assert.equal(requiredLiteral('\\d{3}'), undefined);
  assert.equal(requiredLiteral('x{0,2}yz'), 'yz');
});

test('regex matches through RE2 with the prefilter and finds every hit', () => {
  const p = compilePattern({ type: 'regex', source: 'console\\.(log|debug)\\(', ignoreCase: false });
  assert.equal(p.needle, 'console.');
  assert.deepEqual(p.matchLine('console.log(1); console.debug(2)').map((h) => h.index), [0, 16]);
  assert.deepEqual(p.matchLine('console.info(1)'), []);
  const ci = compilePattern({ type: 'regex', source: 'select \\*', ignoreCase: true });
  assert.equal(ci.foldCase, true);
  assert.equal(ci.matchLine('q("SELECT * FROM t")')[0].index, 3);
  const uni = compilePattern({ type: 'regex', source: 'wörld', ignoreCase: false });
  assert.equal(uni.matchLine('héllo wörld')[0].index, 6, 'indexes are UTF-16 like JS strings');
});

test('catastrophic patterns run in linear time; unsupported syntax is rejected', () => {
  const p = compilePattern({ type: 'regex', source: '(a+)+$', ignoreCase: false });
  const t = Date.now();
  assert.deepEqual(p.matchLine('a'.repeat(40) + '!'), []);
  assert.ok(Date.now() - t < 2000, 'RE2 does not backtrack');
  assert.match(validateRegex('(?<=a)b', false)!, /invalid|perl/i);
  assert.equal(validateRegex('a+b', false), undefined);
});

test('literal patterns, case folding, empty regex matches do not loop', () => {
  const lit = compilePattern({ type: 'literal', source: 'SELECT * FROM', ignoreCase: true });
  assert.deepEqual(lit.matchLine('select * from a; SELECT * FROM b').map((h) => h.index), [0, 17]);
  const empty = compilePattern({ type: 'regex', source: 'x*', ignoreCase: false });
  assert.ok(empty.matchLine('abc').length >= 1);
});

test('simple regexes run on V8 per line, the rest on RE2; both agree', async () => {
  const { isSimpleRegex } = await import('../../../src/core/guard/pattern');
  assert.equal(isSimpleRegex('[A-Z]{12}\\d{6}'), true);
  assert.equal(isSimpleRegex('^\\s*$'), true);
  assert.equal(isSimpleRegex('a+b*'), false, 'two variable quantifiers');
  assert.equal(isSimpleRegex('(a+)+$'), false);
  assert.equal(isSimpleRegex('(ab)?c'), false, 'quantified group');
  assert.equal(isSimpleRegex('a|b'), false);
  assert.equal(isSimpleRegex('(?i)abc'), false);
  assert.equal(isSimpleRegex('[[:alpha:]]x'), false);
  assert.equal(isSimpleRegex('\\Qa.b\\E'), false);
  const line = 'id ABCDEFGHIJKL123456 and ABCDEFGHIJKL654321';
  const js = compilePattern({ type: 'regex', source: '[A-Z]{12}\\d{6}', ignoreCase: false });
  assert.equal(js.cheapPerLine, true);
  const re2 = compilePattern({ type: 'regex', source: '(?:[A-Z]{12})\\d{6}|zzz', ignoreCase: false });
  assert.equal(re2.cheapPerLine, false);
  assert.deepEqual(js.matchLine(line), re2.matchLine(line));
});

test('a needle-less RE2 regex scans the joined diff without matching across lines', async () => {
  const { prepareRules, runRules } = await import('../../../src/core/guard/engine');
  const rule = {
    id: 'R', kind: 'deny' as const, pattern: { type: 'regex' as const, source: 'a\\s+b|q{3}', ignoreCase: false },
    include: [], exclude: [], langs: [], context: 'anywhere' as const, text: 'deny: /a\\s+b|q{3}/', adrId: 'A', adrPath: 'a.md', adrTitle: 'A', line: 1,
  };
  const file = (path: string, texts: string[]) => ({ path, status: 'modified' as const, binary: false, added: texts.map((text, i) => ({ line: i + 1, text })), newSideLines: new Map(texts.map((t, i) => [i + 1, t])) });
  const files = [file('x.txt.ts', ['ends with a', 'b starts', 'has a  b here']), file('y.ts', ['qqq'])];
  const v = await runRules(files, prepareRules([rule]), (f) => [...f.newSideLines.values()]);
  assert.deepEqual(v.map((x) => `${x.path}:${x.line}`), ['x.txt.ts:3', 'y.ts:1']);
});
