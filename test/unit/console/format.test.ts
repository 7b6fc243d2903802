/**
 * The one rounding rule (src/shared/format.ts) that the CLI's offload summary, the editor and the console page share.
 * The figures are the ones a person saw disagree: 26,484 → 127 tokens read 99.5% in the CLI and −100% in the console.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatInt, formatReductionPct, formatTokenChange, formatUsd } from '../../../src/shared/format';
import { formatPct } from '../../../src/core/offload/summaryFile';

test('a reduction reads with one decimal, and never rounds to 100% or 0% when that is not what happened', () => {
  assert.equal(formatReductionPct(1 - 127 / 26484), '99.5');
  assert.equal(formatReductionPct(0.9996), '99.9', 'something was left: not 100.0');
  assert.equal(formatReductionPct(1), '100.0');
  assert.equal(formatReductionPct(0), '0.0');
  assert.equal(formatReductionPct(0.0004), '0.1', 'something was saved: not 0.0');
  assert.equal(formatReductionPct(-0.618), '-61.8');
  assert.equal(formatReductionPct(Number.NaN), '0.0');
});

test('the offload summary the CLI prints and the console\'s node line use that one rule', () => {
  const r = 1 - 127 / 26484;
  assert.equal(formatPct(r), '99.5');
  assert.equal(formatPct(-0.3), '0.0', 'the summary promises a saving: a larger summary reads 0.0%');
  assert.equal(formatTokenChange(26484, 127, r), '26,484 → 127 tokens (−99.5%)');
  assert.equal(formatTokenChange(110, 178, 1 - 178 / 110), '110 → 178 tokens (+61.8%)');
});

test('money below one cent is "<$0.01", never "$0.00"; cents up to $100, whole dollars above', () => {
  assert.equal(formatUsd(0), '$0.00');
  assert.equal(formatUsd(0.0038), '<$0.01');
  assert.equal(formatUsd(-0.0038), '-<$0.01');
  assert.equal(formatUsd(0.01), '$0.01');
  assert.equal(formatUsd(12.345), '$12.35');
  assert.equal(formatUsd(1234.5), '$1,235');
  assert.equal(formatUsd(Number.POSITIVE_INFINITY), '$0.00');
  assert.equal(formatInt(1234567), '1,234,567');
  assert.equal(formatInt(-1500), '-1,500');
});
