import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupRanges } from '../../../webview/views/rangeGroups';

test('ranges with one label become one group of places in log order; overlapping ranges are one place', () => {
  const label = 'test-failure at booking_test.go:62';
  const ranges = [
    ...[4, 7, 10, 13, 16, 19, 22, 25].map((l) => ({ from: Math.max(1, l - 2), to: l + 12, label })),
    { from: 26, to: 40, label: 'test-failure' }, { from: 27, to: 41, label: 'test-failure' },
    { from: 1, to: 3, label: 'panic at main.go:3' },
  ];
  const groups = groupRanges(ranges);
  assert.deepEqual(groups.map((g) => [g.label, g.seen, g.places.length]), [['panic at main.go:3', 1, 1], [label, 8, 1], ['test-failure', 2, 1]]);
  // Every place of the repeated failure overlaps the next: one stretch of the log, lines 2..37.
  assert.deepEqual(groups[1]!.places, [{ from: 2, to: 37 }]);
  assert.deepEqual(groups[2]!.places, [{ from: 26, to: 41 }]);
});

test('places far apart stay separate places of one group', () => {
  const groups = groupRanges([{ from: 500, to: 510, label: 'E0382' }, { from: 10, to: 20, label: 'E0382' }, { from: 200, to: 210, label: 'E0382' }]);
  assert.equal(groups.length, 1);
  assert.deepEqual(groups[0]!.places.map((p) => p.from), [10, 200, 500]);
  assert.deepEqual(groupRanges([]), []);
});
