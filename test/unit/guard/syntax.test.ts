import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClassifier, classifyLexical } from '../../../src/core/guard/syntax';
import { languageOf } from '../../../src/core/guard/languages';

async function at(path: string, src: string, needle: string, nth = 0) {
  const lines = src.split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    for (let c = lines[i].indexOf(needle); c >= 0; c = lines[i].indexOf(needle, c + 1)) {
      if (seen++ === nth) {
        const cl = await createClassifier(languageOf(path), lines, [i + 1]);
        try {
          return cl.classify(i + 1, c);
        } finally {
          cl.dispose();
        }
      }
    }
  }
  throw new Error(`${needle} not found`);
}

test('tree-sitter: TS/TSX comments, strings, template substitutions, non-ASCII columns', async () => {
  const ts = 'const é = "héllo"; // X1\n/* X2\n X3 */ const s = `a X4 ${X5(1)}`;\nX6();';
  assert.equal(await at('a.ts', ts, 'X1'), 'comment');
  assert.equal(await at('a.ts', ts, 'X3'), 'comment');
  assert.equal(await at('a.ts', ts, 'X4'), 'string');
  assert.equal(await at('a.ts', ts, 'X5'), 'code');
  assert.equal(await at('a.ts', ts, 'X6'), 'code');
  assert.equal(await at('a.ts', 'const é = "éééééééé"; X8();', 'X8'), 'code', 'columns are UTF-16 code units, not bytes');
  assert.equal(await at('a.ts', 'const é = "éééééééé X9"; f();', 'X9'), 'string');
  assert.equal(await at('a.tsx', 'const a = <div>{/* X7 */}</div>;', 'X7'), 'comment');
});

test('tree-sitter: Python docstrings and comments, f-string code, Go raw strings, Rust comments', async () => {
  const py = 'def f():\n    """X1 docstring"""\n    s = "X2"\n    t = f"{X3(1)} X4"\n    # X5\n    X6()\n';
  assert.equal(await at('a.py', py, 'X1'), 'comment');
  assert.equal(await at('a.py', py, 'X2'), 'string');
  assert.equal(await at('a.py', py, 'X3'), 'code');
  assert.equal(await at('a.py', py, 'X4'), 'string');
  assert.equal(await at('a.py', py, 'X5'), 'comment');
  assert.equal(await at('a.py', py, 'X6'), 'code');
  const go = 'package main\nvar s = `X1`\n// X2\nfunc main() { X3() }\n';
  assert.equal(await at('a.go', go, 'X1'), 'string');
  assert.equal(await at('a.go', go, 'X2'), 'comment');
  assert.equal(await at('a.go', go, 'X3'), 'code');
  const rs = '/// X1 doc\nfn a() { let s = "X2"; /* X3 */ X4(); }\n';
  assert.equal(await at('a.rs', rs, 'X1'), 'comment');
  assert.equal(await at('a.rs', rs, 'X2'), 'string');
  assert.equal(await at('a.rs', rs, 'X3'), 'comment');
  assert.equal(await at('a.rs', rs, 'X4'), 'code');
});

test('tree-sitter: C, C++, Java, C#', async () => {
  assert.equal(await at('a.c', 'int main() { /* X1 */ printf("X2"); X3(); }', 'X1'), 'comment');
  assert.equal(await at('a.c', 'int main() { /* X1 */ printf("X2"); X3(); }', 'X2'), 'string');
  assert.equal(await at('a.cpp', 'auto s = "X1"; // X2\nX3();', 'X2'), 'comment');
  assert.equal(await at('A.java', 'class A { String s = "X1"; /** X2 */ void f() { X3(); } }', 'X2'), 'comment');
  assert.equal(await at('A.java', 'class A { String s = "X1"; /** X2 */ void f() { X3(); } }', 'X3'), 'code');
  assert.equal(await at('A.cs', 'class A { string s = "X1"; }', 'X1'), 'string');
});

test('lexical fallback: SQL, Ruby, YAML', async () => {
  const sql = "-- X1\nSELECT 'X2', X3 FROM t; /* X4\nX5 */ X6";
  assert.equal(await at('a.sql', sql, 'X1'), 'comment');
  assert.equal(await at('a.sql', sql, 'X2'), 'string');
  assert.equal(await at('a.sql', sql, 'X3'), 'code');
  assert.equal(await at('a.sql', sql, 'X5'), 'comment');
  assert.equal(await at('a.sql', sql, 'X6'), 'code');
  assert.equal(await at('a.rb', 'x = "X1" # X2', 'X2'), 'comment');
  assert.equal(classifyLexical(languageOf('a.yml'), ['key: v # c'], 1, 7), 'comment');
  assert.equal(classifyLexical(languageOf('a.sql'), ['x -- y'], 1, 2), 'comment', 'a match that starts on the comment marker');
});

test('long files are parsed around the matches only, rows keep their numbers', async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => `const v${i} = ${i}; // c${i}`);
  lines[2500] = 'const s = "Y1"; Y2();';
  const cl = await createClassifier(languageOf('big.ts'), lines, [2501]);
  try {
    assert.equal(cl.classify(2501, lines[2500].indexOf('Y1')), 'string');
    assert.equal(cl.classify(2501, lines[2500].indexOf('Y2')), 'code');
    assert.equal(cl.classify(2400, lines[2399].indexOf('// c')), 'comment');
  } finally {
    cl.dispose();
  }
});

test('the parse-free fast path never disagrees with tree-sitter', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { quickCode, firstMultilineOpener } = await import('../../../src/core/guard/syntax');
  const dir = join(__dirname, '..', '..', 'fixtures', 'guard', 'repo', 'src');
  const sources: [string, string][] = readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
  sources.push(
    ['t.ts', 'const a = 1;\nconst s = `multi\nline SELECT * FROM x`;\nconst r = /ab"c/;\nx = y / 2; z();'],
    ['p.py', 'x = 1\ns = """\nSELECT * FROM t\n"""\ny = f(x)  # c\n'],
    ['r.rs', "fn f<'a>(x: &'a str) {}\nlet s = r#\"\nraw\n\"#;\nlet c = 'x'; g();"],
    ['g.go', 'package m\nvar x = 1\nvar s = `\nraw SELECT\n`\nfunc f() { h() }'],
    ['c.cs', 'class A {\n int x = 1;\n string s = @"\nSELECT * FROM t";\n}'],
    // Single-line strings, escapes, prefixes, interpolation, docstrings, JSX text, char literals: quickClass.
    ['s.ts', 'const a = "call fetch(x) now"; fetch(y);\nconst b = \'it\\\'s fetch(z)\' + "q\\"r" + run(1); // fetch(c)\nlet t = x < y ? "a" : \'b\';'],
    ['s.tsx', 'const el = <p>Don\'t call fetch(x)</p>;\nconst s = "ok fetch(1)";'],
    ['s.py', 'def f():\n    \'doc fetch(x)\'\n    s = "call fetch(x)" + g(1)  # fetch(c)\n    t = f"{fetch(x)} now"\n    u = r\'raw fetch(x)\'\n    v = \'a\' \'b fetch(x)\''],
    ['s.go', 'package m\nvar s = "call fetch(x)"; var r = \'x\'; func g() { fetch(1) } // fetch(c)'],
    ['s.rs', 'fn f<\'a>() { let s = "call fetch(x)"; fetch(1); } // fetch(c)\nlet c = \'"\'; let d = "x";'],
    ['s.cpp', '#include "fetch.h"\nauto s = "call fetch(x)"; auto w = L"wide fetch(x)"; char c = \'"\'; fetch(1); // fetch(c)'],
    ['s.java', 'class A { String s = "call fetch(x)"; char c = \'"\'; void f() { fetch(1); } } // fetch(c)'],
    ['s.cs', 'class A { string s = "call fetch(x)"; string i = $"{fetch(x)} now"; void F() { fetch(1); } } // fetch(c)'],
    ['t2.ts', 'const a = `id ${fetch(x)} and ${ {k: run(1)}.k } done fetch(y)`; fetch(z); // fetch(c)\nconst b = tag`x ${fetch(1)}`;\nconst c = `a ${`nested ${fetch(2)}`} b`;\nconst d = `esc \\` fetch(3) ${x}`;\nconst e = 1; fetch(4);'],
    ['t3.go', 'package m\nvar r = `raw fetch(x) \\` + f(1)\nfunc g() { fetch(2) }'],
  );
  const { quickClass } = await import('../../../src/core/guard/syntax');
  let quick = 0;
  const answered = { code: 0, string: 0, comment: 0 };
  for (const [name, src] of sources) {
    const lines = src.split('\n');
    const lang = languageOf(name);
    const cl = await createClassifier(lang, lines);
    try {
      lines.forEach((text, i) => {
        for (const m of text.matchAll(/\w+/g)) {
          const q = quickCode(lang, lines, i + 1, m.index!, m[0].length, () => firstMultilineOpener(lines));
          if (q) {
            quick++;
            assert.equal(cl.classify(i + 1, m.index!), 'code', `${name}:${i + 1}:${m.index} '${m[0]}'`);
          }
          const c = quickClass(lang, lines, i + 1, m.index!, m[0].length, () => firstMultilineOpener(lines));
          if (c) {
            answered[c]++;
            assert.equal(c, cl.classify(i + 1, m.index!), `quickClass ${name}:${i + 1}:${m.index} '${m[0]}'`);
          }
        }
      });
    } finally {
      cl.dispose();
    }
  }
  assert.ok(quick > 50, `the fast path answered ${quick} times`);
  assert.ok(answered.string > 20 && answered.comment > 5 && answered.code > quick, JSON.stringify(answered));
});
