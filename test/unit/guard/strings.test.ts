import { test } from 'node:test';
import assert from 'node:assert/strict';
import { effectiveContext, prepareRules, runRules } from '../../../src/core/guard/engine';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { validateRegex } from '../../../src/core/guard/pattern';
import type { ChangedFile } from '../../../src/core/guard/types';

// Issue 12 item 5: a call written inside a string literal is not a call; SQL and other text inside a string is
// exactly what a text rule governs. Explicit contexts still decide.

const rulesOf = (items: string[]) =>
  parseAdrRules(`---\nstatus: accepted\n---\n# ADR-5: strings\n\n## Invariants\n\n${items.map((i) => `- ${i}`).join('\n')}\n`, 'adr-5.md', validateRegex).rules;

function fileOf(path: string, texts: string[]): ChangedFile {
  return { path, status: 'added', binary: false, added: texts.map((text, i) => ({ line: i + 1, text })), newSideLines: new Map(texts.map((t, i) => [i + 1, t])) };
}
const hunks = (f: ChangedFile) => [...f.newSideLines.values()];

const TS = [
  'const doc = "call fetch(url) to load";', // 1: a call in a string
  'const res = await fetch(url);', // 2: a call
  'const q = db.query("SELECT * FROM users");', // 3: SQL in a string
  '// fetch( in a comment; SELECT * FROM t', // 4: comment
  'const msg = `loading ${fetch(next)} now`;', // 5: a template substitution is code
  "const help = 'use new Function( never';", // 6
  'const f = new Function("return 1");', // 7
  'db.exec("DROP TABLE users");', // 8
  'const s = "os.system(cmd)"; os.system(cmd);', // 9: both on one line
];

async function hits(rule: string, lines = TS, path = 'src/app.ts'): Promise<number[]> {
  const v = await runRules([fileOf(path, lines)], prepareRules(rulesOf([rule])), hunks);
  return v.map((x) => x.line);
}

test('call-shaped patterns do not match inside string literals; text-shaped ones do', async () => {
  assert.deepEqual(await hits('deny: `fetch(`'), [2, 5]);
  assert.deepEqual(await hits('deny: /\\bfetch\\(/'), [2, 5]);
  assert.deepEqual(await hits('deny: `new Function(`'), [7]);
  assert.deepEqual(await hits('deny: SELECT * FROM'), [3]);
  assert.deepEqual(await hits('deny: DROP TABLE'), [8]);
  const both = await runRules([fileOf('src/app.ts', TS)], prepareRules(rulesOf(['deny: `os.system(`'])), hunks);
  assert.deepEqual(both.map((v) => [v.line, v.column, v.context]), [[9, 29, 'code']], 'only the real call on the line');
});

test('explicit contexts override the call/text default', async () => {
  assert.deepEqual(await hits('deny: `fetch(` | anywhere'), [1, 2, 4, 5]);
  assert.deepEqual(await hits('deny: `fetch(` | code-only'), [1, 2, 5], 'code-only = code and strings, as the ADR asked');
  assert.deepEqual(await hits('deny: `fetch(` | context: code'), [1, 2, 5]);
  assert.deepEqual(await hits('deny: SELECT * FROM | no-strings'), []);
  assert.deepEqual(await hits('deny: SELECT * FROM | context: anywhere'), [3, 4]);
});

test('a require trigger written in a string is not a call either', async () => {
  const py = ['import requests', 'doc = "requests.get(url) needs timeout="', 'r = requests.get(url)', 'ok = requests.get(url, timeout=5)'];
  assert.deepEqual(await hits('require: `timeout=` | when: `requests.get(`', py, 'app.py'), [3]);
});

test('the same holds in languages without a grammar (lexical strings) and for PHP-style $fn(', async () => {
  const php = ['<?php', '$x = "call $fn( here";', '$fn($y);'];
  assert.deepEqual(await hits('deny: `$fn(`', php, 'index.php'), [3]);
  const rb = ["puts 'system(cmd)'", 'system(cmd)'];
  assert.deepEqual(await hits('deny: `system(`', rb, 'tool.rb'), [2]);
});

test('the effective context is decided once, when the rule is compiled', () => {
  const [call, text, explicit] = rulesOf(['deny: `eval(`', 'deny: DROP TABLE', 'deny: `eval(` | code-only']);
  assert.equal(call.contextExplicit, undefined);
  assert.equal(effectiveContext(call), 'code-strict');
  assert.equal(effectiveContext(text), 'code');
  assert.equal(explicit.contextExplicit, true);
  assert.equal(effectiveContext(explicit), 'code');
  assert.equal(prepareRules([call])[0].context, 'code-strict');
});
