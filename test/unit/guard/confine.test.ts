import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertInside, checkRequestPaths, isInside } from '../../../src/core/guard/confine';
import { wholeFiles } from '../../../src/core/guard/diffSource';
import { guardCheck } from '../../../src/core/guard/check';

test('isInside follows links and does not mistake ..name folders for escapes', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k0conf-'));
  try {
    const root = join(tmp, 'proj');
    mkdirSync(join(root, '..hidden'), { recursive: true });
    mkdirSync(join(tmp, 'other'));
    symlinkSync(join(tmp, 'other'), join(root, 'out'));
    symlinkSync(join(root, '..hidden'), join(tmp, 'alias'));
    assert.equal(isInside(root, join(root, '..hidden', 'x.ts')), true);
    assert.equal(isInside(root, join(root, 'not-yet', 'new.ts')), true, 'a path that does not exist yet');
    assert.equal(isInside(root, join(root, 'out', 'x.ts')), false, 'a link leading out');
    assert.equal(isInside(root, join(tmp, 'alias', 'x.ts')), true, 'a link from outside leading in');
    assert.equal(isInside(root, '/etc/passwd'), false);
    assert.throws(() => assertInside(root, '../other', 'file'), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT');
    assert.throws(() => assertInside(root, 'a\0b', 'file'), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT');
    assert.throws(() => checkRequestPaths({ cwd: root, repoPath: 'missing' }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT');
    checkRequestPaths({ cwd: root, repoPath: '..hidden', files: ['a.ts'], confineTo: root });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('whole-file reads: an explicit path outside is refused, a link leading out and a FIFO are skipped unread', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k0conf-'));
  try {
    const root = join(tmp, 'proj');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(tmp, 'secret.ts'), 'eval(secret)\n');
    writeFileSync(join(root, 'src', 'ok.ts'), 'eval(ok)\n');
    symlinkSync(join(tmp, 'secret.ts'), join(root, 'src', 'link.ts'));
    execFileSync('mkfifo', [join(root, 'src', 'pipe.ts')]);
    assert.throws(() => wholeFiles(root, [join(tmp, 'secret.ts')]), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT');
    assert.throws(() => wholeFiles(root, ['../secret.ts'], root), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT');
    const got = wholeFiles(root, ['src/ok.ts', 'src/link.ts', 'src/pipe.ts']);
    assert.deepEqual(got.map((f) => [f.path, f.added.length]), [['src/ok.ts', 1]]);

    // A --diff naming a file above the root is checked from its own hunk lines: the file on disk is never read
    // (on disk, a block comment above would make the added line a comment).
    writeFileSync(join(tmp, 'other.ts'), '/* a comment\nx = eval(secret)\n*/\n');
    const diff = 'diff --git a/../other.ts b/../other.ts\n--- a/../other.ts\n+++ b/../other.ts\n@@ -1,0 +2 @@\n+x = eval(secret)\n';
    const adrs = [{ adrId: 'A', adrPath: 'a.md', title: 'A', active: true, diagnostics: [], rules: [{ id: 'R', kind: 'deny' as const, pattern: { type: 'literal' as const, source: 'eval(', ignoreCase: false }, include: [], exclude: [], langs: [], context: 'code' as const, text: 'deny: eval(', adrId: 'A', adrPath: 'a.md', adrTitle: 'A', line: 1 }] }];
    const res = await guardCheck({ cwd: root, diff, adrs, cache: null, env: {} });
    assert.deepEqual(res.violations.map((v) => [v.path, v.line, v.context]), [['../other.ts', 2, 'code']]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
