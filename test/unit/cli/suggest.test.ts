import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closest, closestFlag, editDistance } from '../../../src/cli/suggest';

const COMMANDS = ['init', 'scan', 'recall', 'loadout', 'flush', 'guard', 'hook', 'hooks', 'offload', 'inspect', 'gc', 'distill', 'model', 'scoreboard', 'mcp', 'ui'];

test('issue16-item4: did-you-mean picks near misses (typos, transpositions, prefixes) and nothing for far words', () => {
  assert.equal(editDistance('mdoe', 'mode'), 1, 'a transposition is one edit');
  assert.equal(closest('recal', COMMANDS), 'recall');
  assert.equal(closest('gaurd', COMMANDS), 'guard');
  assert.equal(closest('ofload', COMMANDS), 'offload');
  assert.equal(closest('Scna', COMMANDS), 'scan');
  assert.equal(closest('insp', COMMANDS), 'inspect');
  assert.equal(closest('frobnicate', COMMANDS), undefined);
  assert.equal(closest('xy', COMMANDS), undefined);
  assert.equal(closestFlag('--mdoe', ['vault', 'json', 'mode', 'limit']), '--mode');
  assert.equal(closestFlag('--jsno=1', ['vault', 'json']), '--json');
  assert.equal(closestFlag('--zzzzzz', ['vault', 'json', 'mode']), undefined);
});
