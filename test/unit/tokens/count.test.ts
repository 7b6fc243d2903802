import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countTokens, countTokensRaw } from '../../../src/core/tokens/count';

test('ordinary text is counted exactly by the o200k BPE', () => {
  const text = 'The Living ADR Guard blocks `SELECT * FROM users` in src/db.go:12.\nSecond line.';
  assert.equal(countTokens(text), countTokensRaw(text));
  assert.equal(countTokens('hello world'), 2);
});

test('a pathological line without spaces is counted in slices, close to exact, without the quadratic blow-up', () => {
  const junk = 'aGVsbG8gd29ybGQ'.repeat(400); // 6,000 characters of base64-like text, no spaces
  const safe = countTokens(`before\n${junk}\nafter`);
  const exact = countTokensRaw(`before\n${junk}\nafter`);
  assert.ok(Math.abs(safe - exact) <= Math.ceil(junk.length / 1024) + 1, `${safe} vs ${exact}`);
  assert.equal(countTokens(''), 0);
});
