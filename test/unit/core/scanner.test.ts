import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync, ftruncateSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { openProject } from '../../../src/core/project';
import { K0Error } from '../../../src/core/errors';
import { DIST_CLI, ensureBuilt, REPO } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';

const DIST = join(REPO, 'dist');
import { loadHasher } from '../../../src/core/scan/hash';

const NOTE = (title: string, body = 'Some text.') => `---\ntitle: ${title}\n---\n# ${title}\n${body}\n`;

test('the three tiers: added, unchanged, touched (no re-parse), modified, deleted', async () => {
  const v = tempVault({ 'a.md': NOTE('A'), 'b.md': NOTE('B'), 'sub/c.md': NOTE('C', 'links to [[a]]') });
  const p = openProject({ vault: v.root });
  try {
    const first = await p.scan();
    assert.deepEqual([first.added, first.modified, first.touched, first.unchanged, first.deleted], [3, 0, 0, 0, 0]);
    const clean = await p.scan();
    assert.deepEqual([clean.added, clean.modified, clean.touched, clean.unchanged, clean.deleted], [0, 0, 0, 3, 0]);

    const chunkIdsBefore = p.index.all("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'a.md'");
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(v.notes, 'a.md'), future, future);
    const touched = await p.scan();
    assert.deepEqual([touched.touched, touched.modified, touched.unchanged], [1, 0, 2]);
    assert.deepEqual(p.index.all("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'a.md'"), chunkIdsBefore, 'a touch must not re-parse');
    const row = p.index.get("SELECT mtime_ms FROM documents WHERE path = 'a.md'");
    assert.equal(Math.round(Number(row!.mtime_ms) / 1000), Math.round(future.getTime() / 1000), 'the stored mtime follows the touch');

    v.write('b.md', NOTE('B', 'changed text about zeppelins'));
    utimesSync(join(v.notes, 'b.md'), new Date(Date.now() + 120_000), new Date(Date.now() + 120_000));
    rmSync(join(v.notes, 'sub/c.md'));
    const changed = await p.scan();
    assert.deepEqual([changed.modified, changed.deleted, changed.total], [1, 1, 2]);
    assert.equal(p.index.get("SELECT COUNT(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'zeppelins'")!.n, 1);
    assert.equal(Number(p.index.get("SELECT COUNT(*) AS n FROM documents WHERE path = 'sub/c.md'")!.n), 0);
    assert.equal(Number(p.index.get('SELECT COUNT(*) AS n FROM links')!.n), 0, 'links of a deleted note leave with it');
  } finally {
    p.close();
    v.cleanup();
  }
});

test('ignores .git, node_modules, dot-folders and atomic-write temp files', async () => {
  const v = tempVault({ 'keep.md': NOTE('Keep'), '.git/x.md': NOTE('G'), 'node_modules/y.md': NOTE('N'), '.obsidian/z.md': NOTE('O'), '.keep.md.abc123.tmp': 'x', 'notes.txt': 'not markdown' });
  const p = openProject({ vault: v.root });
  try {
    const r = await p.scan();
    assert.equal(r.added, 1);
    assert.deepEqual(p.index.all('SELECT path FROM documents').map((x) => x.path), ['keep.md']);
  } finally {
    p.close();
    v.cleanup();
  }
});

test('bad input: invalid YAML, binary .md, huge file, invalid UTF-8, CRLF+BOM, symlink loop, odd names — nothing crashes, all reported', async () => {
  const v = tempVault({
    'bad-yaml.md': '---\ntitle: x\nkey: [oops\n---\nStill searchable quokka\n',
    'binary.md': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01, 0x02]),
    'latin1.md': Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a, 0x62, 0x6f, 0x64, 0x79, 0x0a]),
    'crlf.md': '\uFEFF---\r\ntitle: Windows note\r\n---\r\n# Windows note\r\nSee [[bad-yaml]]\r\n',
    'with space/naïve café 日本.md': NOTE('Unicode path', 'tofu'),
  });
  const huge = join(v.notes, 'huge.md');
  const fd = openSync(huge, 'w');
  ftruncateSync(fd, 50 * 1024 * 1024);
  closeSync(fd);
  mkdirSync(join(v.notes, 'loop'));
  symlinkSync('..', join(v.notes, 'loop', 'up'));
  symlinkSync('missing-target.md', join(v.notes, 'dangling.md'));
  const p = openProject({ vault: v.root });
  try {
    const r = await p.scan();
    const reasons = Object.fromEntries(r.skipped.map((s) => [s.path, s.reason]));
    assert.match(reasons['binary.md'], /binary/);
    assert.match(reasons['huge.md'], /too large/);
    assert.match(reasons['dangling.md'], /broken symlink/);
    assert.match(reasons['loop/up'], /symlink loop/);
    assert.ok(r.warnings.some((w) => w.path === 'bad-yaml.md' && w.line >= 2 && /frontmatter/.test(w.message)), JSON.stringify(r.warnings));
    assert.ok(r.warnings.some((w) => w.path === 'latin1.md' && /UTF-8/.test(w.message)));
    const paths = p.index.all('SELECT path, title FROM documents ORDER BY path').map((x) => `${x.path}=${x.title}`);
    assert.ok(paths.includes('crlf.md=Windows note'), paths.join(', '));
    assert.ok(paths.includes('with space/naïve café 日本.md=Unicode path'));
    assert.equal(Number(p.index.get("SELECT COUNT(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'quokka'")!.n), 1, 'invalid-YAML note is indexed as body');
    assert.equal(Number(p.index.get('SELECT COUNT(*) AS n FROM links WHERE to_doc IS NOT NULL')!.n), 1, 'CRLF note link resolves');
  } finally {
    p.close();
    v.cleanup();
  }
});

test('an unreadable file is skipped with its reason (scan run as an unprivileged user)', () => {
  const v = tempVault({ 'ok.md': NOTE('Ok'), 'secret.md': NOTE('Secret') });
  try {
    chmodSync(join(v.notes, 'secret.md'), 0o000);
    let cmd: string[];
    if (process.getuid?.() === 0) {
      // root reads everything: drop to nobody so the permission bits bite. nobody may not be able to enter the
      // repository (a clone under /root, a 0700 temp dir), so it runs a copy of the built CLI from the vault.
      ensureBuilt();
      const bin = join(v.root, 'bin');
      mkdirSync(bin);
      for (const f of readdirSync(DIST)) if (f === 'cli.mjs' || /^lazy-.*\.mjs$/.test(f) || f === 'node-sqlite3-wasm.wasm') copyFileSync(join(DIST, f), join(bin, f));
      spawnSync('chown', ['-R', 'nobody', v.root]);
      chmodSync(v.root, 0o755);
      cmd = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, join(bin, 'cli.mjs'), 'scan', '--json', '--vault', v.root];
    } else {
      cmd = [process.execPath, DIST_CLI, 'scan', '--json', '--vault', v.root];
    }
    const r = spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8', cwd: v.root, env: { ...process.env, HOME: v.root } });
    assert.equal(r.status, 0, r.stderr);
    const skipped = (JSON.parse(r.stdout) as { skipped: { path: string; reason: string }[] }).skipped;
    assert.deepEqual(skipped.map((s) => s.path), ['secret.md']);
    assert.match(skipped[0].reason, /unreadable \(EACCES\)/);
  } finally {
    v.cleanup();
  }
});

test('a vault path that does not exist is a clear VAULT_NOT_FOUND error', () => {
  assert.throws(() => openProject({ vault: '/definitely/not/here' }), (e: unknown) => e instanceof K0Error && e.code === 'VAULT_NOT_FOUND' && /does not exist/.test(e.message));
  const v = tempVault();
  try {
    writeFileSync(join(v.root, 'plain.txt'), '');
    assert.throws(() => openProject({ vault: join(v.root, 'plain.txt') }), (e: unknown) => e instanceof K0Error && e.code === 'VAULT_NOT_FOUND');
  } finally {
    v.cleanup();
  }
});

test('with a yield budget the scan gives the event loop turns while it works, and indexes the same', async () => {
  const files = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`n/${i}.md`, NOTE(`Note ${i}`, `body ${i} `.repeat(40))]));
  const v = tempVault(files);
  const p = openProject({ vault: v.root });
  try {
    await loadHasher(); // its one-time async WASM compile would otherwise free the loop by itself
    // A self-rescheduling setImmediate runs once per event-loop turn: it counts the turns the scan gave away.
    let turns = 0;
    let running = true;
    const spin = () => {
      turns++;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const r = await p.scan({ yieldEveryMs: 0.001 });
    running = false;
    assert.equal(r.added, 300);
    assert.ok(turns >= 300, `only ${turns} event-loop turns during a scan of 300 notes`);
    assert.equal(Number(p.index.get('SELECT COUNT(*) AS n FROM documents')!.n), 300);
  } finally {
    p.close();
    v.cleanup();
  }
});
