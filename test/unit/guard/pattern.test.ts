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
