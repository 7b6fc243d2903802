import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveUserPath, toProjectPath } from '../../../src/core/vault/userPath';
import { globMatcher } from '../../../src/core/guard/engine';

// Issue 16 item 19: the normaliser every entry point uses, with Windows semantics (path.win32) on any machine.

test('issue16-item19: resolveUserPath on win32 — drive letters with either slash, UNC, relative, Git Bash /c/…', () => {
  const base = 'C:\\Users\\dev\\work';
  assert.equal(resolveUserPath('D:\\vaults\\notes', base, 'win32'), 'D:\\vaults\\notes');
  assert.equal(resolveUserPath('d:/vaults/notes/', base, 'win32'), 'd:\\vaults\\notes');
  assert.equal(resolveUserPath('..\\app', base, 'win32'), 'C:\\Users\\dev\\app');
  assert.equal(resolveUserPath('app/sub', base, 'win32'), 'C:\\Users\\dev\\work\\app\\sub');
  assert.equal(resolveUserPath('\\\\server\\share\\vault', base, 'win32'), '\\\\server\\share\\vault');
  assert.equal(resolveUserPath('/c/Users/dev/app', base, 'win32'), 'C:\\Users\\dev\\app');
  assert.equal(resolveUserPath('"C:\\Program Files\\vault"', base, 'win32'), 'C:\\Program Files\\vault', 'quotes pasted from a shell are dropped');
});

test('issue16-item19: resolveUserPath elsewhere — backslashes in relative paths are separators, drive letters are refused with a code', () => {
  assert.equal(resolveUserPath('..\\notes', '/home/dev/app', 'linux'), '/home/dev/notes');
  assert.equal(resolveUserPath('.\\vault\\wiki', '/home/dev', 'darwin'), '/home/dev/vault/wiki');
  assert.equal(resolveUserPath('/srv/vault', '/home/dev', 'linux'), '/srv/vault');
  for (const p of ['C:\\Users\\dev', 'c:/x', '\\\\server\\share']) assert.throws(() => resolveUserPath(p, '/home', 'linux'), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT' && /Windows path/.test(e.message), p);
  assert.throws(() => resolveUserPath('  ', '/home', 'linux'), /empty path/);
});

test('issue16-item19: project paths and guard globs written with backslashes match what git prints', () => {
  assert.equal(toProjectPath('.\\src\\deep\\a.ts'), 'src/deep/a.ts');
  assert.equal(toProjectPath('src\\\\deep\\'), 'src/deep');
  const m = globMatcher(['src\\**\\*.ts', '.\\docs\\*.md'])!;
  assert.ok(m('src/deep/a.ts'));
  assert.ok(m('docs/a.md'));
  assert.ok(!m('lib/a.ts'));
});
