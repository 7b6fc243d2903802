import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listNoteFiles } from '../../../src/core/vault/noteFiles';
import { listProjectNotes, noteFileFor, noteSources, readRegularFile, resolveNoteFile } from '../../../src/core/vault/noteSources';
import { pathsForProject } from '../../../src/core/vault/paths';
import { noteFilePath } from '../../../src/core/vault/notePath';
import { loadVaultRules, memoSize, MEMO_MAX_VAULTS } from '../../../src/core/guard/ruleStore';
import { VaultListing } from '../../../src/core/flush/resolveNote';
import { listDirs, mdFiles } from '../../../src/core/conventions/heuristics';

function project(files: Record<string, string>): { root: string; wiki: string; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'k0-notefiles-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  return { root, wiki: join(root, '.k0maru', 'wiki'), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

test('the rule: md/markdown regular files, no dot-files, ignored folders, exclude globs, sorted; no stat unless asked', () => {
  const p = project({
    '.k0maru/wiki/b.md': 'b',
    '.k0maru/wiki/A.MD': 'a',
    '.k0maru/wiki/c.markdown': 'c',
    '.k0maru/wiki/notes.txt': 'x',
    '.k0maru/wiki/.x.md.1234.tmp': 'tmp',
    '.k0maru/wiki/.hidden/h.md': 'h',
    '.k0maru/wiki/node_modules/n.md': 'n',
    '.k0maru/wiki/dist/d.md': 'd',
    '.k0maru/wiki/drafts/wip.md': 'w',
    '.k0maru/wiki/sub/deep/e.md': 'e',
  });
  try {
    const r = listNoteFiles(p.wiki, { exclude: ['drafts/**'] });
    assert.deepEqual(r.files.map((f) => f.rel), ['A.MD', 'b.md', 'c.markdown', 'sub/deep/e.md']);
    assert.ok(r.files.every((f) => f.stat === undefined), 'the guard path makes no stat per regular file');
    const withStat = listNoteFiles(p.wiki, { stat: true }).files;
    assert.ok(withStat.every((f) => { const st = statSync(f.abs); return f.stat?.size === st.size && f.stat.mtimeMs === st.mtimeMs && f.stat.ctimeMs === st.ctimeMs && f.stat.ino === st.ino; }), 'the stat the walk keeps is the file\'s');
    assert.deepEqual(r.skipped, []);
  } finally {
    p.cleanup();
  }
});

test('symlinks: inside the boundary followed, outside skipped, loops and duplicate folders reported once', () => {
  const outside = mkdtempSync(join(tmpdir(), 'k0-out-'));
  writeFileSync(join(outside, 'o.md'), 'o');
  const p = project({ 'docs/shared/s.md': 's', 'README.md': 'r', '.k0maru/wiki/real/r.md': 'r' });
  try {
    symlinkSync(join(p.root, 'docs', 'shared'), join(p.wiki, 'shared'));
    symlinkSync(join(p.root, 'docs', 'shared'), join(p.wiki, 'shared-again'));
    symlinkSync(join(p.root, 'README.md'), join(p.wiki, 'readme.md'));
    symlinkSync(outside, join(p.wiki, 'elsewhere'));
    symlinkSync(join(outside, 'o.md'), join(p.wiki, 'o.md'));
    symlinkSync('..', join(p.wiki, 'real', 'up'));
    symlinkSync('real', join(p.wiki, 'alias'));
    const r = listNoteFiles(p.wiki, { boundary: p.root });
    assert.deepEqual(r.files.map((f) => f.rel), ['readme.md', 'real/r.md', 'shared/s.md']);
    const why = Object.fromEntries(r.skipped.map((s) => [s.path, s.reason]));
    assert.match(why['elsewhere'], /outside the project/);
    assert.match(why['o.md'], /outside the project/);
    assert.match(why['real/up'], /symlink loop/);
    assert.match(why['alias'], /already walked/);
    assert.match(why['shared-again'], /already walked/);
    // Without a wider boundary the walk root is the boundary.
    assert.deepEqual(listNoteFiles(p.wiki).files.map((f) => f.rel), ['real/r.md']);
  } finally {
    p.cleanup();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('readRegularFile refuses a FIFO at once (O_NONBLOCK + fstat) and reads regular files whole', () => {
  const p = project({ 'a.md': 'hello' });
  try {
    assert.equal(spawnSync('mkfifo', [join(p.root, 'f.md')]).status, 0);
    assert.throws(() => readRegularFile(join(p.root, 'f.md')), (e: NodeJS.ErrnoException) => e.code === 'ENOTREG');
    assert.equal(readRegularFile(join(p.root, 'a.md')).toString(), 'hello');
    assert.equal(readRegularFile(join(p.root, 'a.md'), 2).toString(), 'he');
  } finally {
    p.cleanup();
  }
});

test('note sources: the default ADR folders that exist, config "sources" instead, :/ paths back to files', () => {
  const p = project({ 'docs/adr/0001-a.md': 'a', 'doc/adr/0002-b.md': 'b', 'design/adr/0003-c.md': 'c', 'src/x.md': 'x', '.k0maru/wiki/v.md': 'v' });
  try {
    const paths = pathsForProject(p.root);
    assert.deepEqual(noteSources(paths).map((s) => s.prefix), ['', ':/docs/adr/', ':/doc/adr/']);
    assert.deepEqual(listProjectNotes(paths).files.map((f) => f.path), ['v.md', ':/docs/adr/0001-a.md', ':/doc/adr/0002-b.md']);
    assert.deepEqual(noteSources(paths, { sources: ['design/adr/', './docs/adr'] }).map((s) => s.prefix), ['', ':/design/adr/', ':/docs/adr/']);
    assert.deepEqual(noteSources(paths, { sources: [] }).map((s) => s.prefix), ['']);
    for (const bad of ['../x', '/etc', 'a/../../b']) assert.throws(() => noteSources(paths, { sources: [bad] }), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT', bad);
    assert.throws(() => noteSources(paths, { sources: 'docs' as unknown as string[] }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT');

    assert.equal(noteFileFor(paths, ':/docs/adr/0001-a.md').abs, join(p.root, 'docs/adr/0001-a.md'));
    assert.equal(noteFileFor(paths, 'v.md').abs, join(p.wiki, 'v.md'));
    // Only the note folders: other project files, and escapes, are refused.
    for (const bad of [':/src/x.md', ':/../etc/passwd', '../../src/x.md', ':/docs/adr/../../src/x.md']) {
      assert.throws(() => noteFileFor(paths, bad), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT', bad);
    }
    assert.equal(resolveNoteFile(paths, ':/docs/adr/0001-a.md').real.endsWith('0001-a.md'), true);
    // The editor's string-only mapping agrees with the checked one.
    for (const ip of [':/docs/adr/0001-a.md', 'v.md']) assert.equal(noteFilePath(paths, ip), noteFileFor(paths, ip).abs);
  } finally {
    p.cleanup();
  }
});

test('a vault inside a source folder is excluded from it, a source inside the vault is left to the vault walk', () => {
  const p = project({ 'docs/adr/0001-a.md': 'a', 'docs/adr/vault/n.md': 'n', 'notes/docs/adr/x.md': 'x' });
  try {
    writeFileSync(join(p.root, '.k0maru', 'config.json'), JSON.stringify({ vault: 'docs/adr/vault' }));
    assert.deepEqual(listProjectNotes(pathsForProject(p.root)).files.map((f) => f.path), ['n.md', ':/docs/adr/0001-a.md']);
    writeFileSync(join(p.root, '.k0maru', 'config.json'), JSON.stringify({ vault: '.' }));
    const all = listProjectNotes(pathsForProject(p.root)).files.map((f) => f.path);
    assert.ok(all.includes('docs/adr/0001-a.md') && !all.some((x) => x.startsWith(':/')), all.join(', '));
  } finally {
    p.cleanup();
  }
});

test('the four walkers agree: index sources, guard rule store, flush listing and the convention sniffer', async () => {
  const p = project({
    '.k0maru/wiki/02_Architecture/adr-001.md': '# ADR\n## Rules\n- deny: `eval(`\n',
    '.k0maru/wiki/x.md/inner.md': '# inner\n',
    '.k0maru/wiki/.obsidian/y.md': '# hidden\n',
    '.k0maru/wiki/node_modules/pkg/z.md': '# dep\n',
    'shared/adr-002.md': '# ADR 2\n## Rules\n- deny: `moment(`\n',
  });
  try {
    symlinkSync(join(p.root, 'shared'), join(p.wiki, 'linked'));
    const paths = pathsForProject(p.root);
    const indexed = listProjectNotes(paths).files.map((f) => f.path);
    assert.deepEqual(indexed, ['02_Architecture/adr-001.md', 'linked/adr-002.md', 'x.md/inner.md']);
    assert.deepEqual(VaultListing.of(paths).files, indexed);
    const rules = await loadVaultRules(paths);
    assert.deepEqual(rules.adrs.map((a) => a.adrPath), ['02_Architecture/adr-001.md', 'linked/adr-002.md']);
    assert.deepEqual(listDirs(p.wiki).map((d) => d.rel).sort(), ['02_Architecture', 'x.md']);
    assert.deepEqual(mdFiles(join(p.wiki, '02_Architecture')), ['adr-001.md']);
    assert.deepEqual(mdFiles(p.wiki), [], 'a folder named x.md is not a note file');
  } finally {
    p.cleanup();
  }
});

test('issue 13 item 15: the rule-store memo of a process without a database is bounded (LRU)', async () => {
  const roots: string[] = [];
  try {
    for (let i = 0; i < MEMO_MAX_VAULTS + 5; i++) {
      const root = mkdtempSync(join(tmpdir(), 'k0-memo-'));
      roots.push(root);
      writeFileSync(join(root, 'a.md'), '# A\n## Rules\n- deny: `x(`\n');
      await loadVaultRules(root);
      assert.ok(memoSize() <= MEMO_MAX_VAULTS, `memo holds ${memoSize()}`);
    }
    // The most recent vault is still memoised: after the one re-read that records its stat, reloads parse nothing.
    await loadVaultRules(roots[roots.length - 1]);
    const again = await loadVaultRules(roots[roots.length - 1]);
    assert.equal(again.parsed, 0);
    assert.equal(again.cached, 1);
  } finally {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  }
});
