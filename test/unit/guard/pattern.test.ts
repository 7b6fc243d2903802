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

test('only regexes V8 runs in linear time go to V8 (fixed-length, or ^-anchored with one variable quantifier); the rest on RE2; both agree', async () => {
  const { analyzeRegex } = await import('../../../src/core/guard/pattern');
  const v8 = (src: string) => analyzeRegex(src).linearOnV8;
  const shared = (src: string) => analyzeRegex(src).shared;
  assert.equal(v8('[A-Z]{12}\\d{6}'), true, 'fixed length');
  assert.equal(v8('^\\s*$'), true, 'one start position');
  assert.equal(v8('\\s+$'), false, 'every start position can scan the whole run: O(L²) on V8 (issue 13 defect 10)');
  assert.equal(v8('\\bfetch\\s*\\('), false);
  assert.equal(v8('^a+b*'), false, 'two variable quantifiers');
  assert.equal(v8('(a+)+$'), false);
  assert.equal(v8('(ab)?c'), false, 'quantified group');
  assert.equal(v8('a|b'), false);
  assert.equal(shared('a|b'), true, 'alternation reads alike in both engines: validated without loading RE2');
  for (const s of ['(?i)abc', '[[:alpha:]]x', '\\Qa.b\\E', '[\\b]x', 'a{1001}', '[]a]x', '\\1']) assert.equal(shared(s), false, s);
  const line = 'id ABCDEFGHIJKL123456 and ABCDEFGHIJKL654321';
  const js = compilePattern({ type: 'regex', source: '[A-Z]{12}\\d{6}', ignoreCase: false });
  assert.equal(js.engine, 'v8');
  const re2 = compilePattern({ type: 'regex', source: '(?:[A-Z]{12})\\d{6}|zzz', ignoreCase: false });
  assert.equal(re2.engine, 're2');
  assert.deepEqual(js.matchLine(line), re2.matchLine(line));
});

test('a regex validated by V8 alone still matches when RE2 refuses it, and RE2 objects can be freed and rebuilt', () => {
  const p = compilePattern({ type: 'regex', source: 'ab+c', ignoreCase: false });
  assert.deepEqual(p.matchLine('xabbbc abc').map((h) => h.index), [1, 7]);
  p.dispose();
  assert.deepEqual(p.matchLine('abc').map((h) => h.index), [0], 'usable after dispose');
  p.dispose();
});

test('call-shaped patterns are told from text-shaped ones', async () => {
  const { isCallShaped } = await import('../../../src/core/guard/pattern');
  const lit = (source: string) => isCallShaped({ type: 'literal', source, ignoreCase: false });
  const rx = (source: string) => isCallShaped({ type: 'regex', source, ignoreCase: false });
  for (const s of ['eval(', 'fetch(', 'os.system(', 'subprocess.run(', 'std::process::exit(', 'new Function(', '$fn(', 'panic!(', 'Math.random()', 'window?.open(', '$this->query(']) assert.equal(lit(s), true, s);
  for (const s of ['SELECT * FROM', 'DROP TABLE', 'console.log', 'unsafe {', 'import lodash', 'innerHTML =', 'a + b(', 'TODO(']) assert.equal(lit(s), s === 'TODO(', s);
  for (const s of ['\\bfetch\\(', '\\bbanned_3\\s*\\(', 'console\\.(log|debug)\\(', 'legacy_api_1\\.(get|post)\\(', '^\\s*eval\\(']) assert.equal(rx(s), true, s);
  for (const s of ['SELECT \\* FROM', '\\s+$', 'fetch\\(.*\\)', '[A-Z]{12}\\d{6}', 'a|b\\(']) assert.equal(rx(s), false, s);
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

test('random regexes: what validation accepts RE2 accepts too, and regexes run on V8 find exactly what RE2 finds', async () => {
  const { analyzeRegex } = await import('../../../src/core/guard/pattern');
  const { RE2 } = (await import('re2-wasm')) as unknown as { RE2: new (s: string, f: string) => { lastIndex: number; exec(s: string): (RegExpExecArray & { index: number }) | null; wrapper: { delete(): void } } };
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const atoms = ['a', 'b', '.', '\\d', '\\w', '\\s', '\\b', '^', '$', '[ab]', '[^a]', '(', ')', '(?:', '|', '*', '+', '?', '{2}', '{1,3}', '\\.', '\\(', ' ', 'x', '[\\d]', '\\B', '{', '}', '\\-', '[]', '[a-'];
  const lines = ['ab ab', 'aab x(1)', 'b.a', '  x  ', 'abc123 de_f', 'xxaxb', '', 'a{2}'];
  let onV8 = 0;
  for (let n = 0; n < 3000; n++) {
    let src = '';
    for (let i = 0, len = 1 + Math.floor(rnd() * 7); i < len; i++) src += atoms[Math.floor(rnd() * atoms.length)];
    analyzeRegex(src);
    if (validateRegex(src, false) !== undefined) continue;
    assert.doesNotThrow(() => new RE2(src, 'u').wrapper.delete(), src);
    const p = compilePattern({ type: 'regex', source: src, ignoreCase: false });
    if (p.engine !== 'v8') continue;
    onV8++;
    const r = new RE2(src, 'gu');
    try {
      for (const l of lines) {
        const want: string[] = [];
        r.lastIndex = 0;
        for (let m = r.exec(l); m && want.length < 20; m = r.exec(l)) {
          want.push(`${m.index}:${m[0].length}`);
          if (!m[0].length) r.lastIndex = m.index + 1;
          if (r.lastIndex > l.length) break;
        }
        assert.equal(p.matchLine(l).map((h) => `${h.index}:${h.length}`).join(), want.join(), `/${src}/ on ${JSON.stringify(l)}`);
      }
    } finally {
      r.wrapper.delete();
    }
  }
  assert.ok(onV8 > 200, `${onV8} regexes ran on V8`);
});
