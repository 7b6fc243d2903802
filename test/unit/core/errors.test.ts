import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isK0Error, K0Error, toK0Error } from '../../../src/core/errors';

test('a K0Error from another bundle (another copy of the class) keeps its code; look-alikes with unknown codes do not', () => {
  // What dist/extensionCore.js throws as seen from dist/extensionConsole.js: same name and shape, another class.
  class K0ErrorCopy extends Error {
    override readonly name = 'K0Error';
    constructor(readonly code: string, message: string) {
      super(message);
    }
  }
  const foreign = new K0ErrorCopy('VAULT_NOT_FOUND', 'no vault here');
  assert.ok(isK0Error(foreign));
  assert.equal(toK0Error(foreign).code, 'VAULT_NOT_FOUND');
  assert.equal(toK0Error(new K0ErrorCopy('MADE_UP', 'x')).code, 'INTERNAL', 'a code outside the closed list is not trusted');
  assert.ok(!isK0Error({ name: 'K0Error', code: 'IO_ERROR', message: 'plain object' }), 'only real errors');
  assert.ok(isK0Error(new K0Error('IO_ERROR', 'x')));
});
