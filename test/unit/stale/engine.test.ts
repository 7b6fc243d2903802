import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listStale, readStale, stalenessStatus } from '../../../src/core/stale';
import { staleRepo } from './repo';

const POOL = 'export function acquireLock(n: number) {\n  return n + 1;\n}\n\nexport class Pool {\n  acquire() {\n    return 1;\n  }\n}\n';

function seeded() {
  const r = staleRepo();
  r.write('src/db/pool.ts', POOL);
  r.write('src/other.ts', 'export const x = 1;\nexport const y = 2;\nexport const z = 3;\n');
  r.note('lock.md', '# Locking\n\nWe lock in `acquireLock()`.\n');
  r.note('pool.md', '# Pool\n\nThe pool lives in `src/db/pool.ts`.\n');
  r.note('lines.md', '# Lines\n\nSee `src/other.ts:2`.\n');
  r.note('plain.md', '# Plain\n\nNo code named here, only `cache` as a word.\n');
  const base = r.commit('initial');
  return { r, base };
}

const stalePaths = (p: ReturnType<ReturnType<typeof staleRepo>['open']>) => listStale(p.index).map((n) => n.path);

test('nothing changed: no note is stale, status is on at HEAD', async () => {
  const { r, base } = seeded();
  try {
    const p = r.open();
    const rep = await p.scan();
    assert.equal(rep.staleness?.checked, 3);
    assert.deepEqual(stalePaths(p), []);
    assert.deepEqual(stalenessStatus(p.index), { enabled: true, head: base, unknown: 0 });
  } finally {
    r.cleanup();
  }
});

test('a committed change to an anchored file makes its note stale, with the commit count and last commit in the reason', async () => {
  const { r, base } = seeded();
  try {
    const p = r.open();
    await p.scan();
    r.write('src/db/pool.ts', POOL.replace('return n + 1', 'return n + 2'));
    const c = r.commit('switch to pgx');
    await p.scan();
    assert.deepEqual(stalePaths(p), ['lock.md', 'pool.md']);
    const info = listStale(p.index).find((n) => n.path === 'pool.md')!.info;
    assert.equal(info.reason, `\`src/db/pool.ts\` changed in 1 commit since this note (last ${c.slice(0, 7)} ${new Date().toISOString().slice(0, 10)} 'switch to pgx')`);
    assert.equal(info.base, base);
    assert.equal(info.since, base.slice(0, 7));
    const lock = listStale(p.index).find((n) => n.path === 'lock.md')!.info;
    assert.match(lock.reason, /^`acquireLock\(\)` changed in 1 commit/);
  } finally {
    r.cleanup();
  }
});

test('line anchors: a change outside the lines keeps the note fresh, one inside makes it stale', async () => {
  const { r } = seeded();
  try {
    const p = r.open();
    await p.scan();
    r.write('src/other.ts', 'export const x = 10;\nexport const y = 2;\nexport const z = 3;\n');
    r.commit('touch x');
    await p.scan();
    assert.deepEqual(stalePaths(p), []);
    r.write('src/other.ts', 'export const x = 10;\nexport const y = 20;\nexport const z = 3;\n');
    r.commit('touch y');
    await p.scan();
    assert.deepEqual(stalePaths(p), ['lines.md']);
  } finally {
    r.cleanup();
  }
});

test('symbol anchors: a change elsewhere in the file keeps it fresh; removing the symbol says it no longer exists', async () => {
  const { r } = seeded();
  try {
    const p = r.open();
    await p.scan();
    r.write('src/db/pool.ts', POOL.replace('return 1;', 'return 2;'));
    r.commit('pool acquire');
    await p.scan();
    assert.ok(!stalePaths(p).includes('lock.md'), 'acquireLock body untouched');
    r.write('src/db/pool.ts', 'export class Pool {\n  acquire() {\n    return 2;\n  }\n}\n');
    const c = r.commit('drop the lock');
    await p.scan();
    const lock = listStale(p.index).find((n) => n.path === 'lock.md');
    assert.ok(lock);
    assert.equal(lock.info.reason, `\`acquireLock\` no longer exists (removed in ${c.slice(0, 7)})`);
  } finally {
    r.cleanup();
  }
});

test('a deleted file is stale with the deleting commit; a pure rename follows silently', async () => {
  const { r } = seeded();
  try {
    const p = r.open();
    await p.scan();
    r.git('mv', 'src/db/pool.ts', 'src/db/pools.ts');
    r.commit('rename');
    await p.scan();
    assert.deepEqual(stalePaths(p), [], 'rename without edits is not a change');
    const anchors = p.index.get("SELECT anchors FROM stale_notes s JOIN documents d ON d.id = s.doc_id WHERE d.path = 'pool.md'")!.anchors as string;
    assert.match(anchors, /src\/db\/pools\.ts/);
    r.remove('src/other.ts');
    const c = r.commit('remove other');
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.info.reason), [`\`src/other.ts:2\` was deleted in ${c.slice(0, 7)}`]);
  } finally {
    r.cleanup();
  }
});

test('working-tree edits count: an uncommitted change is reported as such, and reverting it clears the verdict', async () => {
  const { r } = seeded();
  try {
    const p = r.open();
    await p.scan();
    r.write('src/other.ts', 'export const x = 1;\nexport const y = 99;\nexport const z = 3;\n');
    await p.scan();
    assert.deepEqual(listStale(p.index).map((n) => n.info.reason), ['`src/other.ts:2` (those lines) has uncommitted changes since this note']);
    r.git('checkout', '--', 'src/other.ts');
    await p.scan();
    assert.deepEqual(stalePaths(p), []);
  } finally {
    r.cleanup();
  }
});

test('a note committed after the change is fresh (its base moved); a note being edited is fresh until committed', async () => {
  const { r } = seeded();
  try {
    const p = r.open();
    await p.scan();
    r.write('src/db/pool.ts', POOL.replace('return n + 1', 'return n + 2'));
    r.commit('change');
    await p.scan();
    assert.ok(stalePaths(p).includes('pool.md'));
    r.note('pool.md', '# Pool\n\nThe pool lives in `src/db/pool.ts` (re-read after the change).\n');
    await p.scan();
    assert.ok(!stalePaths(p).includes('pool.md'), 'dirty note: fresh');
    r.commit('note updated');
    await p.scan();
    assert.ok(!stalePaths(p).includes('pool.md'), 'committed note: base is its new commit');
    assert.ok(stalePaths(p).includes('lock.md'));
  } finally {
    r.cleanup();
  }
});

test('readStale answers per doc id from the index alone; {} before any computation', async () => {
  const { r } = seeded();
  try {
    const p = r.open();
    assert.equal(readStale(p.index).size, 0);
    assert.equal(stalenessStatus(p.index).enabled, false);
    await p.scan();
    r.remove('src/db/pool.ts');
    r.commit('gone');
    await p.scan();
    const id = Number(p.index.get("SELECT id FROM documents WHERE path = 'pool.md'")!.id);
    const other = Number(p.index.get("SELECT id FROM documents WHERE path = 'plain.md'")!.id);
    const m = readStale(p.index, [id, other]);
    assert.deepEqual([...m.keys()], [id]);
    assert.match(m.get(id)!.reason, /was deleted in/);
  } finally {
    r.cleanup();
  }
});

test('incremental checks follow moved lines: lines pushed down by an edit above are still the anchored ones', async () => {
  const r = staleRepo();
  try {
    const body = (top: string, y: string) => `${top}export const x = 1;\nexport const y = ${y};\nexport const z = 3;\n`;
    r.write('src/other.ts', body('', '2'));
    r.note('lines.md', '# Lines\n\nSee `src/other.ts:2`.\n');
    r.commit('initial');
    const p = r.open();
    await p.scan();
    // Two lines inserted above: the anchored `y` line is now line 4, and line 2 is the old line... x's neighbour.
    r.write('src/other.ts', body('// one\n// two\n', '2'));
    r.commit('header');
    await p.scan();
    assert.deepEqual(listStale(p.index), [], 'an insertion above is not a change of the lines');
    // An edit at the anchor's written number (now a comment line) is not the anchored line...
    r.write('src/other.ts', body('// one\n// TWO\n', '2'));
    r.commit('comment');
    await p.scan();
    assert.deepEqual(listStale(p.index), [], 'line 2 now holds other text');
    // ...and an edit to the moved line is.
    r.write('src/other.ts', body('// one\n// TWO\n', '5'));
    const c = r.commit('y is 5');
    await p.scan();
    const stale = listStale(p.index);
    assert.equal(stale.length, 1);
    assert.match(stale[0].info.reason, new RegExp(`changed in 1 commit since this note \\(last ${c.slice(0, 7)}`));
    assert.notEqual(stale[0].info.base, c);
  } finally {
    r.cleanup();
  }
});

test('a stale anchor touched again stays stale and its count grows (incrementally, from the last check)', async () => {
  const { r, base } = seeded();
  try {
    const p = r.open();
    await p.scan();
    r.write('src/db/pool.ts', POOL.replace('return n + 1', 'return n + 2'));
    r.commit('one');
    await p.scan();
    r.write('src/db/pool.ts', POOL.replace('return n + 1', 'return n + 3'));
    const two = r.commit('two');
    await p.scan();
    const info = listStale(p.index).find((n) => n.path === 'pool.md')!.info;
    assert.match(info.reason, new RegExp(`^\`src/db/pool\\.ts\` changed in 2 commits since this note \\(last ${two.slice(0, 7)} .* 'two'\\)$`));
    assert.equal(info.base, base);
    r.write('src/db/pool.ts', 'export class Pool {}\n');
    const three = r.commit('three');
    await p.scan();
    const lock = listStale(p.index).find((n) => n.path === 'lock.md')!.info;
    assert.equal(lock.reason, `\`acquireLock\` no longer exists (removed in ${three.slice(0, 7)})`);
  } finally {
    r.cleanup();
  }
});

test('a deleted anchor stays stale through later commits that do not touch it (also when first read after the delete)', async () => {
  const { r } = seeded();
  try {
    // The first scan happens after the delete: the path is no longer tracked when the note is read (an `absent`
    // anchor), yet the note's base had it.
    r.note('two.md', '# Two\n\n`src/other.ts:2` and `src/db/pool.ts:1`\n');
    r.commit('two anchors');
    r.remove('src/other.ts');
    const gone = r.commit('remove other');
    const p = r.open();
    await p.scan();
    assert.equal(listStale(p.index).find((n) => n.path === 'two.md')?.info.reason, `\`src/other.ts:2\` was deleted in ${gone.slice(0, 7)}`);
    r.write('src/db/pool.ts', POOL.replace('return 1;', 'return 5;'));
    r.commit('unrelated');
    await p.scan();
    r.write('src/new.ts', 'export const n = 1;\n');
    r.commit('more');
    await p.scan();
    // `unrelated` touched pool.ts (line 7, not line 1): two.md was rechecked from the last HEAD and kept its delete.
    const two = listStale(p.index).find((n) => n.path === 'two.md');
    assert.equal(two?.info.reason, `\`src/other.ts:2\` was deleted in ${gone.slice(0, 7)}`);
  } finally {
    r.cleanup();
  }
});

test('a name removed before the note was first read still counts: resolved at the note\'s base, "no longer exists"', async () => {
  const r = staleRepo();
  try {
    r.write('src/cache.ts', 'export function getBalancingAuthority() {\n  return 1;\n}\nexport function keep() {\n  return 2;\n}\n');
    r.note('n.md', '# N\n\nWe call `getBalancingAuthority()` and `neverDefinedAnywhere()`.\n');
    r.commit('initial');
    r.write('src/cache.ts', 'export function keep() {\n  return 2;\n}\n');
    const c = r.commit('drop it');
    const p = r.open(); // first read after the removal: the name is defined nowhere in the working tree
    await p.scan();
    const stale = listStale(p.index);
    assert.equal(stale.length, 1);
    assert.equal(stale[0].info.reason, `\`getBalancingAuthority\` no longer exists (removed in ${c.slice(0, 7)})`);
    assert.equal(stale[0].info.anchors[0].path, 'src/cache.ts');
  } finally {
    r.cleanup();
  }
});
