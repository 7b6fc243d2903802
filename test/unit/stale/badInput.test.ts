import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listStale, stalenessStatus, updateStaleness } from '../../../src/core/stale';
import { openProject } from '../../../src/core/project';
import { makeHostileRepo } from '../../helpers/hostileRepo';
import { staleRepo } from './repo';

const anchorsOf = (p: ReturnType<ReturnType<typeof staleRepo>['open']>, note: string) =>
  JSON.parse(String(p.index.get('SELECT anchors FROM stale_notes s JOIN documents d ON d.id = s.doc_id WHERE d.path = ?', [note])!.anchors)) as { path: string; kind: string }[];

test('not a git repository: staleness off with its reason, no note stale, and the scan still succeeds', async () => {
  const r = staleRepo({ git: false });
  try {
    r.write('src/a.ts', 'export const a = 1;\n');
    r.note('a.md', '# A\n\nSee `src/a.ts`.\n');
    const p = r.open();
    const rep = await p.scan();
    assert.equal(rep.total, 1);
    const s = stalenessStatus(p.index);
    assert.equal(s.enabled, false);
    assert.match(s.enabled ? '' : s.reason, /not a git repository/);
    assert.deepEqual(listStale(p.index), []);
  } finally {
    r.cleanup();
  }
});

test('not a git repository, kept open: a clean scan asks the index nothing about staleness; another writer makes it look again', async () => {
  const r = staleRepo({ git: false });
  try {
    r.write('src/a.ts', 'export const a = 1;\n');
    r.note('a.md', '# A\n\nSee `src/a.ts`.\n');
    const p = r.open();
    await p.scan();
    const idx = p.index as unknown as Record<'get' | 'all' | 'run', (...a: unknown[]) => unknown>;
    const asked: string[] = [];
    for (const m of ['get', 'all', 'run'] as const) {
      const real = idx[m].bind(p.index);
      idx[m] = (...a: unknown[]) => (asked.push(String(a[0])), real(...a));
    }
    assert.equal((await updateStaleness(p)).status.enabled, false);
    assert.deepEqual(asked, [], 'the off status it stored itself was read again');
    // Another process writes the index (here: the stored status): the next check reads it and puts it right.
    const other = openProject({ vault: r.root });
    other.index.write(() => other.index.run("UPDATE stale_meta SET value = ? WHERE key = 'status'", [JSON.stringify({ enabled: true, head: 'x', unknown: 0 })]));
    other.close();
    const s = await updateStaleness(p);
    assert.match(s.status.enabled ? '' : s.status.reason, /not a git repository/);
    assert.ok(asked.length > 0);
    assert.equal(stalenessStatus(p.index).enabled, false);
    p.close();
  } finally {
    r.cleanup();
  }
});

test('a shallow clone: bases missing are unknown, never stale; status says shallow', async () => {
  const r = staleRepo();
  const clone = mkdtempSync(join(tmpdir(), 'k0-shallow-'));
  try {
    r.write('src/a.ts', 'export const a = 1;\n');
    r.note('a.md', '# A\n\nSee `src/a.ts`.\n');
    r.commit('one');
    r.write('src/a.ts', 'export const a = 2;\n');
    r.commit('two');
    r.write('src/b.ts', 'export const b = 2;\n');
    r.commit('three');
    // The note's base (commit one) is outside a depth-1 clone.
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${r.root}`, join(clone, 'c')]);
    const p = openProject({ cwd: join(clone, 'c'), env: {} });
    try {
      await p.scan();
      assert.deepEqual(listStale(p.index), []);
      // Its base is cut off: unknown (the only note, so staleness is off and says why), not HEAD's "fresh".
      const s = stalenessStatus(p.index);
      assert.equal(s.enabled, false, JSON.stringify(s));
      assert.match(s.enabled ? '' : s.reason, /shallow clone/);
      assert.equal(p.index.get('SELECT state FROM stale_notes')!.state, 'unknown');
      // Control: the full repository does flag it (the note's base is commit one, the file changed in two).
      const full = r.open();
      await full.scan();
      assert.equal(listStale(full.index).length, 1);
    } finally {
      p.close();
    }
  } finally {
    r.cleanup();
    rmSync(clone, { recursive: true, force: true });
  }
});

test('ignored, untracked, binary and symlinked files are not anchors; ../ and absolute paths neither', async () => {
  const r = staleRepo();
  const outside = mkdtempSync(join(tmpdir(), 'k0-outside-'));
  try {
    writeFileSync(join(outside, 'secret.ts'), 'export const s = 1;\n');
    r.write('.gitignore', '.k0maru/index.db*\nbuild/\n');
    r.write('build/out.js', 'x\n');
    r.write('assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]).toString('latin1'));
    r.write('src/real.ts', 'export const real = 1;\n');
    symlinkSync(join(outside, 'secret.ts'), join(r.root, 'src', 'link.ts'));
    r.note('n.md', '# N\n\n`build/out.js` `assets/logo.png` `src/link.ts` `../etc/passwd` `/etc/passwd` `src/real.ts`\n');
    r.commit('c');
    const p = r.open();
    await p.scan();
    assert.deepEqual(anchorsOf(p, 'n.md').map((a) => a.path), ['src/real.ts']);
    // Change the outside file and the binary: nothing becomes stale through them.
    writeFileSync(join(outside, 'secret.ts'), 'export const s = 2;\n');
    r.write('assets/logo.png', 'changed\0');
    r.commit('d');
    await p.scan();
    assert.deepEqual(listStale(p.index), []);
  } finally {
    r.cleanup();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('a note naming 10,000 paths: capped with a warning, the scan and update stay bounded', async () => {
  const r = staleRepo();
  try {
    for (let i = 0; i < 300; i++) r.write(`src/f${i}.ts`, `export const v${i} = ${i};\n`);
    const lines = Array.from({ length: 10_000 }, (_, i) => `- \`src/f${i % 300}.ts:${i + 1}\``);
    r.note('huge.md', `# Huge\n\n${lines.join('\n')}\n`);
    r.commit('c');
    const p = r.open();
    const t0 = performance.now();
    const rep = await p.scan();
    const ms = performance.now() - t0;
    assert.ok(rep.staleness, 'update ran');
    assert.equal(anchorsOf(p, 'huge.md').length, 200);
    assert.ok(rep.staleness!.warnings.some((w) => /only the first 200 anchors/.test(w)), rep.staleness!.warnings.join('\n'));
    assert.ok(ms < 30_000, `took ${ms} ms`);
  } finally {
    r.cleanup();
  }
});

test('a detached HEAD is read from .git/HEAD and staleness works there', async () => {
  const r = staleRepo();
  try {
    r.write('src/a.ts', 'export const a = 1;\n');
    r.note('a.md', '# A\n\nSee `src/a.ts`.\n');
    r.commit('one');
    r.write('src/a.ts', 'export const a = 2;\n');
    const two = r.commit('two');
    r.git('checkout', '-q', '--detach', two);
    r.git('pack-refs', '--all');
    const p = r.open();
    await p.scan();
    const s = stalenessStatus(p.index);
    assert.deepEqual(s, { enabled: true, head: two, unknown: 0 });
    assert.equal(listStale(p.index).length, 1);
  } finally {
    r.cleanup();
  }
});

test('a rebase in progress keeps the last verdicts (no false stale from the half-applied history)', async () => {
  const r = staleRepo();
  try {
    r.write('src/a.ts', 'export const a = 1;\n');
    r.note('a.md', '# A\n\nSee `src/a.ts`.\n');
    r.commit('one');
    const p = r.open();
    await p.scan();
    r.git('checkout', '-q', '-b', 'side');
    r.write('src/a.ts', 'export const a = 2;\n');
    r.commit('side change');
    r.git('checkout', '-q', 'main');
    r.write('src/a.ts', 'export const a = 3;\n');
    r.commit('main change');
    await p.scan();
    assert.equal(listStale(p.index).length, 1);
    r.note('a.md', '# A\n\nSee `src/a.ts` (re-read).\n');
    r.commit('note re-read');
    await p.scan();
    assert.equal(listStale(p.index).length, 0);
    r.git('checkout', '-q', 'side');
    try {
      r.git('rebase', 'main');
    } catch {
      /* conflicts: the rebase stops midway, as intended */
    }
    assert.ok(existsSync(join(r.root, '.git', 'rebase-merge')) || existsSync(join(r.root, '.git', 'rebase-apply')));
    await p.scan();
    assert.equal(listStale(p.index).length, 0, 'verdicts kept during the rebase');
    assert.equal(stalenessStatus(p.index).enabled, true);
  } finally {
    r.cleanup();
  }
});

test('a hostile repository config runs none of its programs during the staleness update', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-hostile-'));
  const marker = join(root, '..', `${root.split('/').pop()}-marker`);
  try {
    makeHostileRepo(root, marker);
    mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
    writeFileSync(join(root, '.k0maru', 'wiki', 'a.md'), '# A\n\nSee `a.ts` and `src/x.ts`.\n');
    writeFileSync(join(root, 'a.ts'), 'export const a = 2;\n');
    if (existsSync(marker)) rmSync(marker);
    const p = openProject({ cwd: root, env: {} });
    try {
      await p.scan();
      assert.equal(stalenessStatus(p.index).enabled, true);
    } finally {
      p.close();
    }
    assert.equal(existsSync(marker) ? readFileSync(marker, 'utf8') : '', '', 'no repository program ran');
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(marker, { force: true });
  }
});

test('a linked worktree (a .git file with gitdir:, refs in the common dir) is read without spawning git', async () => {
  const r = staleRepo();
  const wt = mkdtempSync(join(tmpdir(), 'k0-wt-'));
  try {
    r.write('src/a.ts', 'export const a = 1;\n');
    r.note('a.md', '# A\n\nSee `src/a.ts`.\n');
    r.commit('one');
    r.git('worktree', 'add', '-q', '-b', 'feature', join(wt, 'w'));
    const w = join(wt, 'w');
    writeFileSync(join(w, 'src', 'a.ts'), 'export const a = 2;\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qam', 'feature change'], { cwd: w });
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: w, encoding: 'utf8' }).trim();
    const { locateRepo, readHead } = await import('../../../src/core/stale/gitHead');
    const loc = locateRepo(w)!;
    assert.equal(loc.top, w);
    assert.equal(readHead(loc), head, 'the worktree branch, not main');
    const p = openProject({ cwd: w, env: {} });
    try {
      await p.scan();
      assert.deepEqual(stalenessStatus(p.index), { enabled: true, head, unknown: 0 });
      assert.equal(listStale(p.index).length, 1);
    } finally {
      p.close();
    }
  } finally {
    r.cleanup();
    rmSync(wt, { recursive: true, force: true });
  }
});
