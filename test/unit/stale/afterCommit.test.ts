import { chmodSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listStale } from '../../../src/core/stale';
import { NewCommits } from '../../../src/core/stale/newCommits';
import { blobId } from '../../../src/core/stale/blob';
import { staleRepo, type StaleRepo } from './repo';

/**
 * The update after a commit in a kept-open host (afterCommit.ts / newCommits.ts): one git process, the verdicts
 * of the general path. Git processes are counted for real: a `git` earlier on PATH logs each call, then runs git.
 */

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** Runs `fn` with every git process this process starts logged; returns the subcommands (first word after the -c pairs). */
async function countingGit<T>(fn: () => Promise<T>): Promise<{ value: T; calls: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'k0-gitcount-'));
  const log = join(dir, 'calls');
  writeFileSync(log, '');
  const wrapper = join(dir, 'git');
  writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${REAL_GIT}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  const before = process.env.PATH;
  process.env.PATH = `${dir}:${before}`;
  try {
    const value = await fn();
    const calls = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => {
      const words = line.split(' ');
      let i = 0;
      while (i < words.length && (words[i] === '--no-pager' || words[i] === '-c')) i += words[i] === '-c' ? 2 : 1;
      return words[i];
    });
    return { value, calls };
  } finally {
    process.env.PATH = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

const fn = (name: string, body: string) => `export function ${name}(x: number): number {\n  return ${body};\n}\n`;
const SQL = '-- the schema\nselect 1;\nselect 2;\nselect 3;\n';

function seed(r: StaleRepo) {
  r.write('src/a.ts', fn('alphaOne', 'x + 1') + '\n' + fn('alphaTwo', 'x + 2'));
  r.write('src/b.ts', 'export const one = 1;\nexport const two = 2;\nexport const three = 3;\n');
  r.write('src/c.ts', 'export const c = 1;\n');
  r.write('src/gone.ts', fn('goneSoon', 'x'));
  r.write('src/moving.ts', fn('movingOn', 'x * 3') + '\nexport const pad1 = 1;\nexport const pad2 = 2;\nexport const pad3 = 3;\n');
  r.write('db/q.sql', SQL);
  r.note('alpha.md', '# Alpha\n\n`alphaOne()` and `alphaTwo()`.\n');
  r.note('lines.md', '# Lines\n\n`src/b.ts:3` and `db/q.sql:4`.\n');
  r.note('path.md', '# Path\n\nAll of `src/c.ts`.\n');
  r.note('gone.md', '# Gone\n\n`src/gone.ts` and `goneSoon()`.\n');
  r.note('moving.md', '# Moving\n\n`movingOn()` in `src/moving.ts`.\n');
  r.note('editing.md', '# Editing\n\n`src/c.ts` too.\n');
  r.commit('base');
}

/** One commit with edits of every kind (no pure rename: that one goes the general way, see below). */
function change(r: StaleRepo) {
  r.write('src/a.ts', fn('alphaOne', 'x + 10') + '\n' + fn('alphaTwo', 'x + 2'));
  r.write('src/b.ts', 'export const zero = 0;\nexport const one = 1;\nexport const two = 2;\nexport const three = 3;\n');
  r.write('src/c.ts', 'export const c = 2;\n');
  r.remove('src/gone.ts');
  r.git('mv', 'src/moving.ts', 'src/moved.ts');
  r.write('src/moved.ts', fn('movingOn', 'x * 30') + '\nexport const pad1 = 1;\nexport const pad2 = 2;\nexport const pad3 = 3;\n');
  // The removed first line reads `-- the schema`: `--- the schema` in a -U0 patch, not a file header.
  r.write('db/q.sql', 'select 1;\nselect 2;\nselect 33;\n');
  // The code only: a note being edited stays uncommitted.
  r.git('add', '-A', '--', 'src', 'db');
  r.git('commit', '-q', '--no-verify', '-m', 'edit, shift, delete, rename with edits');
  return r.git('rev-parse', 'HEAD').trim();
}

const rows = (p: ReturnType<StaleRepo['open']>) =>
  p.index.all('SELECT d.path, s.state, s.base, s.info, s.anchors FROM stale_notes s JOIN documents d ON d.id = s.doc_id ORDER BY d.path').map((x) => JSON.stringify(x));

async function scenario(general: boolean) {
  const r = staleRepo({ fixedDates: true });
  seed(r);
  const p = r.open();
  await p.scan();
  // A note being edited while the commit lands (its base is the working tree): it must stay so.
  r.note('editing.md', '# Editing\n\n`src/c.ts` too, being rewritten.\n');
  await p.scan();
  const c = change(r);
  const read = NewCommits.read;
  if (general) NewCommits.read = async () => undefined;
  try {
    const { calls } = await countingGit(() => p.scan());
    return { r, p, c, calls, rows: rows(p) };
  } finally {
    NewCommits.read = read;
  }
}

test('after a commit a kept-open host runs ONE git process, and its verdicts are the general path\'s, row for row', async () => {
  const fast = await scenario(false);
  const general = await scenario(true);
  try {
    assert.equal(fast.c, general.c, 'both repositories have the same history');
    assert.deepEqual(fast.calls, ['log'], `git calls: ${fast.calls.join(', ')}`);
    assert.ok(general.calls.length >= 5, `the general path asks more: ${general.calls.join(', ')}`);
    assert.deepEqual(fast.rows, general.rows);
    const reasons = new Map(listStale(fast.p.index).map((n) => [n.path, n.info.anchors.map((a) => `${a.anchor}:${a.change}`).sort().join(' ')]));
    assert.equal(reasons.get('alpha.md'), 'alphaOne():changed');
    assert.equal(reasons.get('lines.md'), 'db/q.sql:4:changed', 'src/b.ts:3 moved down untouched; q.sql line 4 changed');
    assert.equal(reasons.get('path.md'), 'src/c.ts:changed');
    assert.equal(reasons.get('gone.md'), 'goneSoon():removed src/gone.ts:deleted');
    assert.equal(reasons.get('moving.md'), 'movingOn():changed src/moving.ts:changed');
    assert.equal(reasons.has('editing.md'), false, 'a note being edited is fresh');
  } finally {
    fast.r.cleanup();
    general.r.cleanup();
  }
});

test('after a commit, a committed file that is dirty again, or a pure rename, makes the update ask git the general way', async () => {
  const r = staleRepo();
  try {
    seed(r);
    const p = r.open();
    await p.scan();
    await p.scan();
    r.write('src/c.ts', 'export const c = 2;\n');
    r.commit('c');
    r.write('src/c.ts', 'export const c = 3;\n'); // committed, then edited again before the scan
    const dirty = await countingGit(() => p.scan());
    assert.ok(dirty.calls.length > 1, `general path expected: ${dirty.calls.join(', ')}`);
    assert.ok(listStale(p.index).some((n) => n.path === 'path.md'));
    r.git('checkout', '--', 'src/c.ts');
    await p.scan();
    r.git('mv', 'src/a.ts', 'src/a2.ts');
    r.commit('pure rename');
    const renamed = await countingGit(() => p.scan());
    assert.ok(renamed.calls.length > 1, `general path expected: ${renamed.calls.join(', ')}`);
    const anchors = p.index.get("SELECT anchors FROM stale_notes s JOIN documents d ON d.id = s.doc_id WHERE d.path = 'alpha.md'")!.anchors as string;
    assert.match(anchors, /src\/a2\.ts/);
  } finally {
    r.cleanup();
  }
});

test('a clean scan in a kept-open host runs no git and stats only what moved, yet sees an in-place edit and a moved folder', async () => {
  const r = staleRepo();
  try {
    seed(r);
    const p = r.open();
    await p.scan();
    await p.scan(); // the second check sets up the watch
    const clean = await countingGit(() => p.scan());
    assert.deepEqual(clean.calls, []);
    assert.deepEqual(listStale(p.index).map((n) => n.path), []);
    // An in-place edit (same size): the watch names the file, its stamp no longer holds.
    r.write('src/c.ts', 'export const c = 9;\n');
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.path).sort(), ['editing.md', 'path.md']);
    r.git('checkout', '--', 'src/c.ts');
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.path), []);
    // A parent folder renamed sends the watched folder no event: its identity no longer matches.
    execFileSync('mv', [join(r.root, 'db'), join(r.root, 'db2')]);
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.path), ['lines.md']);
  } finally {
    r.cleanup();
  }
});

test('racy stamps: a same-size edit within the mtime tick of the last check is still seen (git\'s racy-clean rule)', async () => {
  const r = staleRepo();
  try {
    seed(r);
    let p = r.open();
    await p.scan();
    p.close();
    // Edited, then checked in the same tick as the write.
    r.write('src/b.ts', 'export const one = 1;\nexport const two = 2;\nexport const three = 4;\n');
    // A whole second (what a file system with 1 s timestamps records, and what utimes sets exactly), just ahead.
    const tick = Math.ceil(Date.now() / 1000) + 1;
    utimesSync(join(r.root, 'src/b.ts'), tick, tick);
    p = r.open();
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.path), ['lines.md']);
    p.close();
    // Written back within that tick (same size, same mtime): only the bytes tell.
    r.write('src/b.ts', 'export const one = 1;\nexport const two = 2;\nexport const three = 3;\n');
    utimesSync(join(r.root, 'src/b.ts'), tick, tick);
    p = r.open();
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.path), [], 'the revert was missed: a racy stamp was trusted');
  } finally {
    r.cleanup();
  }
});

test('racy stamps settle: once a racily stamped file is past the racy window, a clean scan stores its stamp plain and later ones stop reading it', async () => {
  const r = staleRepo();
  try {
    seed(r);
    // Every file an hour old, then stamps as a check right after a checkout takes them (mtime inside the racy
    // window: the bytes' hash appended), so the stored stamps are racy although the files are long settled.
    const old = Date.now() / 1000 - 3600;
    for (const f of ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/gone.ts', 'src/moving.ts', 'db/q.sql']) utimesSync(join(r.root, f), old, old);
    let p = r.open();
    await p.scan();
    const racy = Object.fromEntries(
      Object.entries(JSON.parse(String(p.index.get("SELECT value FROM stale_meta WHERE key = 'stamps'")!.value)) as Record<string, string>).map(([path, s]) => [path, `${s}:${blobId(readFileSync(join(r.root, path)))}`]),
    );
    assert.ok(Object.keys(racy).length >= 5, JSON.stringify(racy));
    p.index.write(() => p.index.run("UPDATE stale_meta SET value = ? WHERE key = 'stamps'", [JSON.stringify(racy)]));
    const verdicts = listStale(p.index).map((n) => n.path);
    p.close();

    p = r.open();
    await p.scan();
    const stored = JSON.parse(String(p.index.get("SELECT value FROM stale_meta WHERE key = 'stamps'")!.value)) as Record<string, string>;
    assert.deepEqual(Object.keys(stored).sort(), Object.keys(racy).sort());
    for (const [path, s] of Object.entries(stored)) assert.equal(s.split(':').length, 2, `${path} still racy: ${s}`);
    assert.deepEqual(listStale(p.index).map((n) => n.path), verdicts);
    p.close();
    // A plain stamp still sees an edit (the mtime moves).
    r.write('src/b.ts', 'export const one = 1;\nexport const two = 2;\nexport const three = 4;\n');
    p = r.open();
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.path), [...new Set([...verdicts, 'lines.md'])].sort());
    p.close();
  } finally {
    r.cleanup();
  }
});
