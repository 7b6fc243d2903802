import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compilePattern, pinnedPrefix, validateRegex } from '../../../src/core/guard/pattern';
import { prepareRules, runRules } from '../../../src/core/guard/engine';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { re2Loaded } from '../../../src/core/guard/re2Pool';
import type { ChangedFile } from '../../../src/core/guard/types';

// Issue 17: a regex rule that starts with a literal and is linear from one start position runs on V8 for a line
// where the literal occurs once, so a hook whose diff meets such a rule does not load RE2's WASM (~40 ms of a
// one-shot process). node --test runs this file in a process of its own; the tests run in order (RE2 is loaded
// only by the later ones).

test('pinnedPrefix: the literal a match starts with, only for regexes linear from one start', () => {
  assert.equal(pinnedPrefix('\\bsetTimeout\\(\\s*["\']'), 'setTimeout(');
  assert.equal(pinnedPrefix('\\bJSON\\.parse\\(.*req\\.'), 'JSON.parse(');
  assert.equal(pinnedPrefix('abc+d'), 'ab', 'a quantified last character is not part of it');
  assert.equal(pinnedPrefix('a+b'), undefined);
  assert.equal(pinnedPrefix('foo\\s*bar|baz'), undefined, 'alternation');
  assert.equal(pinnedPrefix('foo(ab)+c'), undefined, 'quantified group');
  assert.equal(pinnedPrefix('foo\\s*bar.*x'), undefined, 'two variable quantifiers');
  assert.equal(pinnedPrefix('\\s*foo'), undefined, 'no leading literal');
  assert.equal(pinnedPrefix('(?=x)foo\\s*'), undefined, 'syntax only RE2 reads');
});

const adr = parseAdrRules(
  ['---', 'status: accepted', '---', '# ADR-1: pinned', '', '## Invariants', '', '- deny: /\\bsetTimeout\\(\\s*["\']/ | because: strings are eval', '- warn: /\\bJSON\\.parse\\(.*req\\./ | because: validate input', ''].join('\n'),
  'adr-1.md',
  validateRegex,
);
const fileOf = (texts: string[]): ChangedFile => ({ path: 'src/a.ts', status: 'modified', binary: false, added: texts.map((text, i) => ({ line: i + 1, text })), newSideLines: new Map(texts.map((t, i) => [i + 1, t])) });
const hunks = (f: ChangedFile) => [...f.newSideLines.values()];

test('lines holding a pinned rule\'s literal once are judged without loading RE2', async () => {
  assert.equal(adr.rules.length, 2, JSON.stringify(adr.diagnostics));
  assert.equal(compilePattern(adr.rules[0].pattern).engine, 're2', 'V8 alone could not be trusted with it on every line');
  const lines = ['setTimeout(() => run(), 10);', 'setTimeout( "alert(1)", 10);', 'const a = JSON.parse(req.body);', 'const b = JSON.parse(text);', 'plain line'];
  const v = await runRules([fileOf(lines)], prepareRules(adr.rules), hunks);
  assert.deepEqual(v.map((x) => `${x.line}:${x.match}`), ['2:setTimeout( "', '3:JSON.parse(req.']);
  assert.equal(re2Loaded(), false);
});

test('a line that repeats the literal goes to RE2, with the same verdict', async () => {
  const v = await runRules([fileOf(['setTimeout(a); setTimeout( "x")'])], prepareRules(adr.rules), hunks);
  assert.deepEqual(v.map((x) => x.match), ['setTimeout( "']);
  assert.equal(re2Loaded(), true);
});

test('pinned V8 matching finds exactly what RE2 finds (random lines and regexes)', () => {
  const { RE2 } = require('re2-wasm') as { RE2: new (s: string, f: string) => { lastIndex: number; exec(s: string): (RegExpExecArray & { index: number }) | null } };
  const re2Hits = (src: string, line: string) => {
    const re = new RE2(src, 'gu');
    const out: string[] = [];
    for (let m = re.exec(line); m && out.length < 20; m = re.exec(line)) {
      out.push(`${m.index}:${m[0]}`);
      if (!m[0].length) re.lastIndex = m.index + 1;
    }
    return out;
  };
  const sources = ['\\bab\\s*c', 'ab\\(.*c', 'ab[cd]+e', 'a\\.b\\w?c', '\\Bab\\d{1,3}x', 'ab.*', 'ab\\s+'];
  for (const src of sources) assert.ok(pinnedPrefix(src), src);
  fc.assert(
    fc.property(fc.constantFrom(...sources), fc.array(fc.constantFrom('ab', 'a', 'b', 'c', 'd', 'e', 'x', ' ', '(', '.', '1', '22', 'é'), { maxLength: 14 }), (src, parts) => {
      const line = parts.join('');
      const ours = compilePattern({ type: 'regex', source: src, ignoreCase: false }).matchLine(line).map((h) => `${h.index}:${line.slice(h.index, h.index + h.length)}`);
      assert.deepEqual(ours, re2Hits(src, line), `/${src}/ on ${JSON.stringify(line)}`);
    }),
    { numRuns: 600, seed: 17 },
  );
});
