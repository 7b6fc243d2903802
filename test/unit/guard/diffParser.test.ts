import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, chmodSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parseUnifiedDiff } from '../../../src/core/guard/diffParser';
import { stagedChanges, worktreeChanges, branchChanges } from '../../../src/core/guard/diffSource';
import { makeRepo } from './helpers';

test('real git diff: several files and hunks, new/deleted/renamed, binary, mode-only, CRLF, non-ASCII, no EOL', async () => {
  const r = makeRepo();
  try {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    r.write('multi.ts', long);
    r.write('gone.py', 'print(1)\n');
    r.write('old name.go', 'package main\n\nfunc main() {\n\tprintln("a")\n\tprintln("b")\n\tprintln("c")\n}\n');
    r.write('bin.dat', 'a\0b');
    r.write('run.sh', 'echo hi\n');
    r.write('crlf.sql', 'SELECT id FROM t;\r\nSELECT 1;\r\n');
    r.write('noeol.rs', 'fn a() {}');
    r.commit('base');

    r.write('multi.ts', long.replace('line 2\n', 'line 2\nADDED A\n').replace('line 28\n', 'ADDED B\nline 28\n').replace('line 15\n', ''));
    unlinkSync(join(r.root, 'gone.py'));
    r.git('mv', 'old name.go', 'nëw name.go');
    r.write('nëw name.go', 'package main\n\nfunc main() {\n\tprintln("a")\n\tprintln("b")\n\tprintln("c")\n\tprintln("ü")\n}\n');
    r.write('bin.dat', 'a\0c');
    chmodSync(join(r.root, 'run.sh'), 0o755);
    r.write('crlf.sql', 'SELECT id FROM t;\r\nSELECT * FROM users;\r\nSELECT 1;\r\n');
    r.write('noeol.rs', 'fn a() {}\nfn b() {}');
    r.write('fresh.ts', 'export const fresh = 1;\n-- not a header\n');
    r.git('add', '-A');

    const files = await stagedChanges(r.root);
    const by = new Map(files.map((f) => [f.path, f]));
    assert.deepEqual(by.get('multi.ts')!.added, [{ line: 3, text: 'ADDED A' }, { line: 28, text: 'ADDED B' }]);
    assert.equal(by.get('gone.py')!.status, 'deleted');
    assert.deepEqual(by.get('gone.py')!.added, []);
    const ren = by.get('nëw name.go')!;
    assert.equal(ren.status, 'renamed');
    assert.equal(ren.oldPath, 'old name.go');
    assert.deepEqual(ren.added, [{ line: 7, text: '\tprintln("ü")' }]);
    assert.equal(by.get('bin.dat')!.binary, true);
    assert.equal(by.get('run.sh')!.status, 'mode');
    assert.deepEqual(by.get('run.sh')!.added, []);
    assert.deepEqual(by.get('crlf.sql')!.added, [{ line: 2, text: 'SELECT * FROM users;' }]);
    assert.deepEqual(by.get('noeol.rs')!.added, [{ line: 1, text: 'fn a() {}' }, { line: 2, text: 'fn b() {}' }]);
    assert.equal(by.get('fresh.ts')!.status, 'added');
    assert.deepEqual(by.get('fresh.ts')!.added.map((a) => a.text), ['export const fresh = 1;', '-- not a header']);

    // Working tree = staged + unstaged + untracked (whole file).
    r.write('untracked.py', 'x = 1\ny = 2\n');
    const wt = await worktreeChanges(r.root);
    assert.deepEqual(wt.find((f) => f.path === 'untracked.py')!.added, [{ line: 1, text: 'x = 1' }, { line: 2, text: 'y = 2' }]);
    assert.ok(wt.find((f) => f.path === 'multi.ts'));
  } finally {
    r.dispose();
  }
});

test('a removed line that looks like a header stays in its hunk; removed lines are never added', () => {
  const diff = [
    'diff --git a/q.sql b/q.sql',
    'index 1..2 100644',
    '--- a/q.sql',
    '+++ b/q.sql',
    '@@ -1,3 +1,2 @@',
    '--- old comment',
    '-SELECT * FROM gone;',
    ' SELECT 1;',
    '+SELECT 2;',
    '\\ No newline at end of file',
    'diff --git a/b.ts b/b.ts',
    '--- a/b.ts',
    '+++ b/b.ts',
    '@@ -10 +10 @@ function x() {',
    '-old',
    '+new',
  ].join('\n');
  const files = parseUnifiedDiff(diff);
  assert.equal(files.length, 2);
  assert.deepEqual(files[0].added, [{ line: 2, text: 'SELECT 2;' }]);
  assert.deepEqual(files[1].added, [{ line: 10, text: 'new' }]);
});

test('plain diff -u, quoted paths, hand-written fragments and CRLF diff text', () => {
  const plain = '--- a.py\t2024-01-01 00:00:00\n+++ a.py\t2024-01-02 00:00:00\n@@ -1 +1,2 @@\n x\n+y\n';
  assert.deepEqual(parseUnifiedDiff(plain)[0].added, [{ line: 2, text: 'y' }]);
  const quoted = 'diff --git "a/caf\\303\\251.ts" "b/caf\\303\\251.ts"\nnew file mode 100644\n--- /dev/null\n+++ "b/caf\\303\\251.ts"\n@@ -0,0 +1 @@\n+const c = "é";\n';
  const q = parseUnifiedDiff(quoted)[0];
  assert.equal(q.path, 'café.ts');
  assert.equal(q.status, 'added');
  const frag = parseUnifiedDiff('diff --git a/src/db.rs b/src/db.rs\n+let res = sqlx::query("SELECT * FROM users");');
  assert.equal(frag[0].path, 'src/db.rs');
  assert.deepEqual(frag[0].added, [{ line: 1, text: 'let res = sqlx::query("SELECT * FROM users");' }]);
  const crlf = parseUnifiedDiff('--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n');
  assert.deepEqual(crlf[0].added, [{ line: 1, text: 'b' }]);
  const bin = parseUnifiedDiff('diff --git a/i.png b/i.png\nGIT binary patch\nliteral 3\nKcmZ?\n\ndiff --git a/k.ts b/k.ts\n--- a/k.ts\n+++ b/k.ts\n@@ -1 +1 @@\n-a\n+b\n');
  assert.equal(bin[0].binary, true);
  const copy = parseUnifiedDiff('diff --git a/a.ts b/c.ts\nsimilarity index 90%\ncopy from a.ts\ncopy to c.ts\n--- a/a.ts\n+++ b/c.ts\n@@ -1,2 +1,3 @@\n x\n+y\n z\n');
  assert.equal(copy[0].status, 'copied');
  assert.equal(copy[0].oldPath, 'a.ts');
  assert.deepEqual(copy[0].added, [{ line: 2, text: 'y' }]);
  const spaces = parseUnifiedDiff('diff --git a/my file.ts b/my file.ts\nold mode 100644\nnew mode 100755\n');
  assert.equal(spaces[0].path, 'my file.ts');
  assert.equal(spaces[0].status, 'mode');
  assert.deepEqual(bin[1].added, [{ line: 1, text: 'b' }]);
});

test('branch source: merge-base to working tree plus untracked', async () => {
  const r = makeRepo({ 'a.ts': 'a\n' });
  try {
    r.commit('base');
    r.git('checkout', '-q', '-b', 'feature');
    r.write('a.ts', 'a\ncommitted\n');
    r.commit('feature work');
    r.write('a.ts', 'a\ncommitted\nunstaged\n');
    r.write('new.ts', 'brand new\n');
    writeFileSync(join(r.root, '.gitignore'), 'ignored.ts\n');
    r.write('ignored.ts', 'never\n');
    const files = await branchChanges(r.root, 'main');
    const a = files.find((f) => f.path === 'a.ts')!;
    assert.deepEqual(a.added.map((x) => x.text), ['committed', 'unstaged']);
    assert.ok(files.find((f) => f.path === 'new.ts'));
    assert.ok(!files.find((f) => f.path === 'ignored.ts'));
    await assert.rejects(branchChanges(r.root, 'no-such-branch'), /merge-base/);
  } finally {
    r.dispose();
  }
});
