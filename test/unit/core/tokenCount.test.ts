import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenCount } from '../../../src/core/index/ftsLayout';

// tokenCount picks a chunk's length bucket in chunks_fts (ftsLayout.ts), so it must count what unicode61 counts:
// the runs the regex below matches. The counter walks char codes instead of allocating a match per token.
const RUNS = /[\p{L}\p{N}\p{Co}]+/gu;
const byRegex = (t: string) => (t.match(RUNS) ?? []).length;

test('tokenCount counts the runs of letters, digits and private-use characters the regex counts, on hostile text', () => {
  const cases = [
    '', 'a', '   ', 'TS2339 retry_webhook-v2.3', '😀abc😀', 'x\ud800y', '\udc00abc', 'abc\ud800', 'naïve café Ñandú',
    '東京都 の 天気', 'العربية نص', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚', 'a\u0301b', 'x\ue000y \udb80\udc00z', '٣٤٥ ١٢', 'ǅ ß ﬁ',
    '\u200bzero\u200bwidth', '\u00a0nbsp\u2028line', 'ꙮ ᚠᛇᚻ',
  ];
  for (const t of cases) assert.equal(tokenCount(t), byRegex(t), JSON.stringify(t));
  assert.equal(tokenCount('one two  three'), 3);
  assert.equal(tokenCount('x\ud800y'), 2, 'a lone surrogate separates');
});

test('tokenCount agrees with the regex on random strings over the whole of UTF-16 (seeded)', () => {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let k = 0; k < 5000; k++) {
    let s = '';
    for (let j = 0; j < 24; j++) s += String.fromCharCode(next() < 0.5 ? Math.floor(next() * 128) : Math.floor(next() * 0x10000));
    assert.equal(tokenCount(s), byRegex(s), JSON.stringify(s));
  }
});
