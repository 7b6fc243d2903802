import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, validateRegex } from '../../../src/core/guard/pattern';
import { prepareRules, runRules } from '../../../src/core/guard/engine';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { re2Loaded } from '../../../src/core/guard/re2Pool';
import type { ChangedFile } from '../../../src/core/guard/types';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeRepo } from './helpers';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';

// Issue 17 item 1: RE2-WASM is loaded (compiled) only when a regex rule needs it — its literal prefilter matched an
// added line, or it has no literal and V8 cannot run it in linear time. node --test runs this file in a process
// of its own, so nothing before the first test has loaded RE2. The tests run in order and build on each other.

const adr = parseAdrRules(
  [
    '---',
    'status: accepted',
    '---',
    '# ADR-1: regex rules',
    '',
    '## Invariants',
    '',
    '- deny: /\\bbanned_call\\s*\\(/ | because: RE2 (variable width), literal prefilter banned_call',
    '- warn: /legacy_api\\.(get|post)\\(/i | because: RE2 or V8, literal legacy_api',
    '- warn: /[A-Z]{12}\\d{6}/ | because: fixed width, V8',
    '- deny: `forbidden_call(` | because: literal',
    '',
  ].join('\n'),
  'adr-1.md',
  validateRegex,
);

function fileOf(path: string, texts: string[]): ChangedFile {
  return { path, status: 'modified', binary: false, added: texts.map((text, i) => ({ line: i + 1, text })), newSideLines: new Map(texts.map((t, i) => [i + 1, t])) };
}
const hunks = (f: ChangedFile) => [...f.newSideLines.values()];
const clean = Array.from({ length: 300 }, (_, i) => `  const value${i} = computeSomething(arg${i}, "x") + other; // note ${i}`);

test('parsing and preparing regex rules in the shared syntax does not load RE2', () => {
  assert.equal(adr.diagnostics.length, 0, JSON.stringify(adr.diagnostics));
  assert.equal(adr.rules.length, 4);
  assert.equal(compilePattern(adr.rules[0].pattern).engine, 're2', 'the first rule is one only RE2 may run');
  prepareRules(adr.rules);
  assert.equal(re2Loaded(), false);
});

test('a diff none of whose lines holds a regex rule\'s literal never loads RE2, even with a literal rule firing', async () => {
  const v = await runRules([fileOf('src/a.ts', [...clean, 'forbidden_call(1);'])], prepareRules(adr.rules), hunks);
  assert.deepEqual(v.map((x) => x.match), ['forbidden_call(']);
  assert.equal(re2Loaded(), false, 'RE2 was compiled for rules whose prefilter matched nothing');
});

test('a line holding the literal of an RE2 rule loads it, and the rule is judged by RE2', async () => {
  // Twice: a line holding it once is judged by V8 from that one start (pattern.ts, pinnedPrefix; startPinned.test.ts).
  const v = await runRules([fileOf('src/a.ts', [...clean, 'banned_call  (x); banned_call(y);'])], prepareRules(adr.rules), hunks);
  assert.deepEqual(v.map((x) => x.match), ['banned_call  (', 'banned_call(']);
  assert.equal(re2Loaded(), true);
});

test('the bundled pre-commit hook runs an RE2-only rule from dist/re2.cjs (re2-wasm outside the hook\'s chunks)', () => {
  ensureBuilt();
  assert.ok(existsSync(join(dirname(DIST_CLI), 're2.cjs')), 'the build writes dist/re2.cjs');
  const chunks = readdirSync(dirname(DIST_CLI)).filter((f) => /^lazy-.*\.mjs$/.test(f));
  assert.deepEqual(chunks.filter((f) => readFileSync(join(dirname(DIST_CLI), f), 'utf8').includes('translateRegExp')), [], 're2-wasm\'s code is in no lazy chunk');
  const r = makeRepo({ '.k0maru/wiki/adr/adr-001.md': ['---', 'status: accepted', '---', '# ADR-1: no banned calls', '', '## Invariants', '', '- deny: /\\bbanned_call\\s*\\(/ | because: variable width', ''].join('\n'), 'src/ok.ts': 'export const ok = 1;\n' });
  try {
    r.commit('init');
    r.write('src/bad.ts', 'banned_call  (x); banned_call(y);\n');
    r.git('add', 'src/bad.ts');
    const res = spawnSync(process.execPath, [DIST_CLI, 'hook', 'pre-commit'], { cwd: r.root, encoding: 'utf8' });
    assert.equal(res.status, 1, res.stderr);
    assert.match(res.stderr, /banned_call {2}\(/);
  } finally {
    r.dispose();
  }
});
