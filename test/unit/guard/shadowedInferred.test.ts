// An inferred rule that restates an explicit rule of its own ADR adds no second report for the same line; an
// inferred finding on a line no explicit rule reports, or one from another ADR, stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withoutShadowedInferred } from '../../../src/core/guard/check';
import type { Violation } from '../../../src/core/guard/types';

const v = (over: Partial<Violation>): Violation => ({
  ruleId: 'r', kind: 'deny', severity: 'error', path: 'src/a.go', line: 9, column: 1, match: 'http.Post(', rule: 'deny: x',
  adrId: 'adr-003', adrPath: '02_Architecture/adr-003.md', context: 'code', inferred: false, ...over,
});

test('an inferred finding on a line its ADR already reports explicitly is dropped; others stay', () => {
  const explicit = v({});
  const shadowed = v({ ruleId: 'adr-003#inferred-2', severity: 'warning', inferred: true, match: 'http.Post' });
  const otherLine = v({ ruleId: 'adr-003#inferred-2', severity: 'warning', inferred: true, line: 12 });
  const otherAdr = v({ ruleId: 'adr-009#inferred-1', severity: 'warning', inferred: true, adrId: 'adr-009', adrPath: '02_Architecture/adr-009.md' });
  assert.deepEqual(withoutShadowedInferred([explicit, shadowed, otherLine, otherAdr]), [explicit, otherLine, otherAdr]);
  assert.deepEqual(withoutShadowedInferred([shadowed]), [shadowed], 'alone, the inferred finding is reported');
});
