// The index heals itself and never writes through what a cloned repository may carry in `.k0maru/`: every test
// runs the real built CLI (dist/cli.mjs) against a real vault in a temp folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from 'node-sqlite3-wasm';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault, type TempVault } from '../../helpers/tempVault';

const WORDS = 'cache webhook retry mutex redis postgres latency queue worker shard replica failover schema migration rollback deploy canary token session tracing metrics alert incident runbook'.split(' ');

/** A vault big enough that its index has a real middle (a few hundred pages). */
function bigVault(n = 400): TempVault {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const body = Array.from({ length: 120 }, (_, j) => WORDS[(i * 7 + j * 13) % WORDS.length]).join(' ');
    files[`n/note-${i}.md`] = `---\ntitle: Note ${i}\ntags: [t${i % 9}]\n---\n# Note ${i}\n\n${body} uniq${i}\n\nSee [[note-${(i + 1) % n}]].\n`;
  }
  return tempVault(files);
}

function cli(v: TempVault, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [DIST_CLI, ...args, '--vault', v.root], { encoding: 'utf8', cwd: v.root, env: { ...process.env, HOME: v.root } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const indexOf = (v: TempVault) => join(v.root, '.k0maru', 'index.db');
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const aside = (v: TempVault) => readdirSync(join(v.root, '.k0maru')).filter((f) => f.startsWith('index.db.corrupt-'));

/** The first column of the first row of `sql`, read straight from the file (not through IndexDb). */
function firstValue(path: string, sql: string): unknown {
  const db = new Database(path);
  try {
    return Object.values(db.get(sql)!)[0];
  } finally {
    db.close();
  }
}

const integrity = (path: string) => String(firstValue(path, 'PRAGMA integrity_check'));
const documents = (path: string) => Number(firstValue(path, 'SELECT COUNT(*) AS n FROM documents'));

/** Another application's SQLite file, outside the project. */
function foreignDb(dir: string): string {
  const p = join(dir, 'other-app.sqlite');
  const db = new Database(p);
  db.exec("CREATE TABLE precious(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO precious(v) VALUES ('keep me'), ('and me');");
  db.close();
  return p;
}

test('a symlinked index.db is moved aside unfollowed: the other application\'s file keeps every byte', () => {
  ensureBuilt();
  const v = tempVault({ 'a.md': '# A\nalpha beta\n' });
  const outside = tempVault();
  try {
    const target = foreignDb(outside.root);
    const before = sha(target);
    symlinkSync(target, indexOf(v));
    const r = cli(v, 'scan');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /index\.db was a symlink.*moved to index\.db\.corrupt-\d+-symlink/);
    assert.equal(sha(target), before);
    assert.ok(lstatSync(indexOf(v)).isFile(), 'a regular index.db takes its place');
    assert.equal(documents(indexOf(v)), 1);
    assert.equal(cli(v, 'recall', 'alpha', '--mode', 'bm25').code, 0);
    assert.equal(sha(target), before);
  } finally {
    v.cleanup();
    outside.cleanup();
  }
});

test('a symlinked journal, a symlinked or file .lock, and a hard-linked index are moved aside, never written through', () => {
  ensureBuilt();
  const v = tempVault({ 'a.md': '# A\nalpha beta\n' });
  const outside = tempVault();
  try {
    assert.equal(cli(v, 'scan').code, 0);
    const journalTarget = join(outside.root, 'journal.bin');
    writeFileSync(journalTarget, 'bytes a TRUNCATE journal would wipe');
    const lockTarget = join(outside.root, 'lockdir');
    mkdirSync(lockTarget);
    writeFileSync(join(lockTarget, 'keep.txt'), 'keep');
    rmSync(`${indexOf(v)}-journal`, { force: true }); // TRUNCATE mode leaves an empty one behind
    symlinkSync(journalTarget, `${indexOf(v)}-journal`);
    symlinkSync(lockTarget, `${indexOf(v)}.lock`);
    const before = sha(journalTarget);
    v.write('b.md', '# B\ngamma\n'); // a write: the journal is used
    const r = cli(v, 'scan');
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /index\.db-journal was a symlink/);
    assert.match(r.err, /index\.db\.lock was a symlink/);
    assert.equal(sha(journalTarget), before);
    assert.equal(readFileSync(join(lockTarget, 'keep.txt'), 'utf8'), 'keep');
    assert.equal(documents(indexOf(v)), 2);

    // A .lock that is a plain file would read as "locked" forever.
    writeFileSync(`${indexOf(v)}.lock`, '');
    const locked = cli(v, 'recall', 'gamma', '--mode', 'bm25');
    assert.equal(locked.code, 0, locked.err);
    assert.match(locked.err, /index\.db\.lock was a file, not a directory/);

    // A second name for another application's file: renaming ours leaves theirs untouched.
    mkdirSync(join(outside.root, 'h'));
    const other = foreignDb(join(outside.root, 'h'));
    const otherBefore = sha(other);
    const db = indexOf(v);
    rmSync(db);
    linkSync(other, db);
    const h = cli(v, 'scan');
    assert.equal(h.code, 0, h.err);
    assert.match(h.err, /index\.db was a hardlink/);
    assert.equal(sha(other), otherBefore);
    assert.equal(statSync(other).nlink, 2, 'the aside name still points at it; nothing was written');
  } finally {
    v.cleanup();
    outside.cleanup();
  }
});

test('20 garbage pages in the middle of index.db: the first command warns, moves it aside and answers; later ones are clean', () => {
  ensureBuilt();
  const v = bigVault();
  try {
    assert.equal(cli(v, 'scan').code, 0);
    const size = statSync(indexOf(v)).size;
    const pages = size / 4096;
    assert.ok(pages > 100, `index has ${pages} pages`);
    const fd = openSync(indexOf(v), 'r+');
    const first = Math.floor(pages / 2) - 10;
    for (let i = 0; i < 20; i++) writeSync(fd, randomBytes(4096), 0, 4096, (first + i) * 4096);
    closeSync(fd);
    assert.notEqual(integrity(indexOf(v)), 'ok', 'the file really is corrupt');

    // Every query an agent would make: each must answer, the corruption is found and healed on the way.
    const queries = ['retry', 'redis', 'uniq17', 'uniq399', 'canary rollback', 'incident runbook'];
    const scan = cli(v, 'scan');
    assert.equal(scan.code, 0, scan.err);
    let warned = /is corrupt|unreadable/.test(scan.err);
    for (const q of queries) {
      const r = cli(v, 'recall', q, '--mode', 'bm25');
      assert.equal(r.code, 0, `${q}: ${r.err}`);
      assert.match(r.out, /n\/note-\d+\.md/, q);
      warned ||= /is corrupt|unreadable/.test(r.err);
    }
    const loadout = cli(v, 'loadout');
    assert.equal(loadout.code, 0, loadout.err);
    assert.ok(warned, 'the repair was reported');
    assert.equal(aside(v).length, 1);
    assert.equal(integrity(indexOf(v)), 'ok');
    assert.equal(documents(indexOf(v)), 400);
    const again = cli(v, 'recall', 'uniq17', '--mode', 'bm25');
    assert.equal(again.code, 0);
    assert.equal(again.err, '');
  } finally {
    v.cleanup();
  }
});

test('index.db as a directory, truncated to zero, cut in half, or not a database: scan rebuilds it with a warning', () => {
  ensureBuilt();
  const v = bigVault(200);
  try {
    const forms: [string, () => void, RegExp][] = [
      ['a directory', () => (rmSync(indexOf(v)), mkdirSync(indexOf(v))), /index\.db was a dir, not a regular file/],
      ['truncated to zero', () => truncateSync(indexOf(v), 0), /was empty \(truncated to zero bytes\)/],
      ['cut in half', () => truncateSync(indexOf(v), Math.floor(statSync(indexOf(v)).size / 8192) * 4096), /unreadable \(quick_check/],
      ['not a database', () => writeFileSync(indexOf(v), 'garbage '.repeat(2000)), /unreadable/],
    ];
    for (const [what, damage, warning] of forms) {
      assert.equal(cli(v, 'scan').code, 0);
      damage();
      const r = cli(v, 'scan', '--json');
      assert.equal(r.code, 0, `${what}: ${r.err}`);
      assert.match(r.err, warning, what);
      assert.equal(JSON.parse(r.out).added, 200, what);
      assert.equal(integrity(indexOf(v)), 'ok', what);
      const q = cli(v, 'recall', 'uniq42', '--mode', 'bm25');
      assert.equal(q.code, 0, `${what}: ${q.err}`);
      assert.match(q.out, /note-42\.md/, what);
    }
  } finally {
    v.cleanup();
  }
});

test('a long-lived host whose index is damaged under it: the failing call heals the file, the same project rescans and answers', async () => {
  const { openProject, isRebuiltIndex } = await import('../../../src/core/project');
  const v = bigVault(300);
  const logs: string[] = [];
  const p = openProject({ vault: v.root, log: (level, m) => logs.push(`${level}: ${m}`) });
  try {
    await p.scan();
    const held = p.index.prepare('SELECT COUNT(*) AS n FROM documents');
    const pages = statSync(indexOf(v)).size / 4096;
    const fd = openSync(indexOf(v), 'r+');
    for (let i = 1; i < pages; i++) writeSync(fd, randomBytes(4096), 0, 4096, i * 4096); // every page but the header
    // A new change counter, as any other writer leaves: SQLite drops its page cache and reads the damage.
    writeSync(fd, Buffer.from([0x7f, 0x01, 0x02, 0x03]), 0, 4, 24);
    closeSync(fd);
    let healed: unknown;
    try {
      p.index.all("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'uniq7'");
      p.index.all('SELECT * FROM documents');
    } catch (err) {
      healed = err;
    }
    assert.ok(isRebuiltIndex(healed), String(healed));
    assert.ok(logs.some((l) => /^warn: .*is corrupt.*moved to .*index\.db\.corrupt-\d+/.test(l)), logs.join('\n'));
    assert.throws(() => held.get(), /replaced while a statement was in use/);
    held.finalize(); // idempotent after the heal
    const r = await p.scan();
    assert.equal(r.added, 300, 'the scanner noticed it faces another index and refilled it');
    assert.equal(p.index.all("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'uniq7'").length, 1);
    assert.equal(p.index.rebuilds, 1);
  } finally {
    p.close();
    v.cleanup();
  }
});

test('two handles meet the same damage: one file is moved aside, both end on the one fresh index', async () => {
  const { IndexDb } = await import('../../../src/core/index/db');
  const { openProject } = await import('../../../src/core/project');
  const v = bigVault(120);
  try {
    const p = openProject({ vault: v.root });
    await p.scan();
    const other = IndexDb.open(indexOf(v));
    assert.equal(Number(other.get('SELECT COUNT(*) AS n FROM documents')!.n), 120);
    const pages = statSync(indexOf(v)).size / 4096;
    const fd = openSync(indexOf(v), 'r+');
    for (let i = 1; i < pages; i++) writeSync(fd, randomBytes(4096), 0, 4096, i * 4096);
    writeSync(fd, Buffer.from([0x7f, 0x01, 0x02, 0x03]), 0, 4, 24);
    closeSync(fd);
    assert.throws(() => p.index.all('SELECT * FROM documents'), /is corrupt/);
    // The other handle has not read since: it follows the path to the fresh file instead of healing again.
    assert.equal(Number(other.get('SELECT COUNT(*) AS n FROM documents')!.n), 0);
    await p.scan();
    assert.equal(Number(other.get('SELECT COUNT(*) AS n FROM documents')!.n), 120, 'both see the same, refilled file');
    assert.equal(aside(v).length, 1);
    other.close();
    p.close();
  } finally {
    v.cleanup();
  }
});
