import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LruMap } from '../../../src/core/guard/lru';
import { PREPARED_RULE_CAP, prepareRules, preparedRuleCount, runRules } from '../../../src/core/guard/engine';
import type { ChangedFile, GuardRule } from '../../../src/core/guard/types';

// Issue 13 item 15: the compiled-rule memo lives as long as the host (MCP server, editor) and used to keep every
// rule it ever saw; every ADR edit makes new keys.

const rule = (n: number, source = `/banned_${n}\\s*\\(/`): GuardRule => ({
  id: `R${n}`, kind: 'deny', pattern: { type: 'regex', source: source.slice(1, -1), ignoreCase: false },
  include: [], exclude: [], langs: [], context: 'code', text: `deny: ${source}`, adrId: 'A', adrPath: 'a.md', adrTitle: 'A', line: n,
});

test('LruMap keeps the most recently used entries up to its capacity and tells what it evicts', () => {
  const evicted: string[] = [];
  const m = new LruMap<string, number>(3, (_v, k) => evicted.push(k));
  m.set('a', 1);
  m.set('b', 2);
  m.set('c', 3);
  assert.equal(m.get('a'), 1); // a is now the youngest
  m.set('d', 4);
  assert.deepEqual(evicted, ['b']);
  assert.equal(m.size, 3);
  assert.equal(m.has('b'), false);
  m.set('c', 30); // an update is a use, not a new entry
  m.set('e', 5);
  assert.deepEqual(evicted, ['b', 'a']);
  assert.equal(m.get('c'), 30);
  assert.throws(() => new LruMap(0), RangeError);
});

test('the compiled-rule memo stays bounded; a rule in use stays compiled; an evicted rule still works when it comes back', async () => {
  const hot = rule(-1);
  const first = prepareRules([hot])[0];
  const file: ChangedFile = { path: 'src/a.ts', status: 'added', binary: false, added: [{ line: 1, text: 'x = banned_0 (1)' }], newSideLines: new Map([[1, 'x = banned_0 (1)']]) };
  const check = async (rules: ReturnType<typeof prepareRules>) => (await runRules([file], rules, (f) => [...f.newSideLines.values()])).map((x) => x.ruleId);
  const inFlight = prepareRules([rule(0)]);
  assert.deepEqual(await check(inFlight), ['R0']); // builds its RE2 object
  for (let batch = 0; batch < 6; batch++) {
    const rules = Array.from({ length: 500 }, (_, i) => rule(batch * 500 + i));
    prepareRules([hot, ...rules]);
    assert.ok(preparedRuleCount() <= PREPARED_RULE_CAP, `memo holds ${preparedRuleCount()} > ${PREPARED_RULE_CAP}`);
  }
  assert.equal(preparedRuleCount(), PREPARED_RULE_CAP);
  assert.equal(prepareRules([hot])[0], first, 'the rule used in every check was never evicted');
  assert.notEqual(prepareRules([rule(0)])[0], inFlight[0], 'evicted long ago (its RE2 object was freed), compiled anew');
  assert.deepEqual(await check(prepareRules([rule(0)])), ['R0']);
  assert.deepEqual(await check(inFlight), ['R0'], 'a check that still holds the evicted rule keeps working');
});

test('live RE2 objects stay within one pool: 3,000 distinct regexes and 3,000 validations never fill the fixed 16 MB WASM heap', async () => {
  const { compilePattern, re2PoolSize, RE2_POOL, validateRegex } = await import('../../../src/core/guard/pattern');
  // Unpooled, ~600-3,000 such objects filled re2-wasm's heap and every later RE2 call failed.
  const patterns = Array.from({ length: 3000 }, (_, i) => compilePattern({ type: 'regex', source: `tok_${i}(a|b)+x`, ignoreCase: false }));
  patterns.forEach((p, i) => assert.deepEqual(p.matchLine(`y tok_${i}abx z`), [{ index: 2, length: `tok_${i}abx`.length }]));
  assert.ok(re2PoolSize() <= RE2_POOL, `${re2PoolSize()} live RE2 objects`);
  for (let i = 0; i < 3000; i++) assert.equal(validateRegex(`(?i)val_${i}\\pL`, false), undefined);
  assert.deepEqual(patterns[0].matchLine('tok_0bbbx'), [{ index: 0, length: 9 }], 'an evicted regex is compiled again');
  assert.equal(compilePattern({ type: 'regex', source: '(?i)FINAL|x{2}', ignoreCase: false }).matchLine('final')[0]?.index, 0);
});
