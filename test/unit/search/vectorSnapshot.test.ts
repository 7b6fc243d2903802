import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexDb } from '../../../src/core/index/db';
import { IncrementalScanner } from '../../../src/core/scan/scanner';
import { VectorStore } from '../../../src/core/search/vector';
import { snapshotPath } from '../../../src/core/search/vectorSnapshot';

// The vector store's snapshot file (src/core/search/vectorSnapshot.ts): a fresh store reads it instead of the
// index only when the index vouches for it, and answers exactly as a store read from the index would.

const LAYOUT = '60w-title';

function unit(seed: number, dim: number): Float32Array {
  const v = Float32Array.from({ length: dim }, (_, j) => Math.sin(seed * 0.7 + j * 1.3));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

async function vault(notes: number) {
  const tmp = mkdtempSync(join(tmpdir(), 'k0-snap-'));
  const dir = join(tmp, 'notes');
  mkdirSync(dir);
  for (let i = 0; i < notes; i++) writeFileSync(join(dir, `n${i}.md`), `# Note ${i}\n\n${'word '.repeat(10 + i)}topic${i} detail.\n`);
  const idx = IndexDb.open(join(tmp, 'k0', 'index.db'));
  const scanner = new IncrementalScanner(idx, dir);
  await scanner.scan();
  return { tmp, dir, idx, scanner, close: () => (idx.close(), rmSync(tmp, { recursive: true, force: true })) };
}

/** Stores a made-up vector for every pending passage (or the first `only`). */
function fill(store: VectorStore, only = Infinity): void {
  const todo = store.pendingPassages().slice(0, only);
  store.put(todo.map((p, i) => ({ hash: p.hash, vector: unit(i + 1, store.dim) })));
}

const searchOf = (s: VectorStore, dim: number) => JSON.stringify(s.search(unit(3, dim), 5));

test('a saved snapshot is read by the next store, which answers exactly as one read from the index', async () => {
  const v = await vault(12);
  try {
    const a = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    fill(a);
    assert.equal(a.saveSnapshot(), true);
    assert.equal(a.saveSnapshot(), false, 'nothing changed: no second write');
    const fromFile = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    const fromIndex = new VectorStore(v.idx, 'm8', 8);
    assert.equal(fromFile.loadedFrom, 'snapshot');
    assert.equal(fromIndex.loadedFrom, 'index');
    assert.deepEqual(fromFile.size, fromIndex.size);
    assert.equal(fromFile.pending(), 0);
    assert.equal(searchOf(fromFile, 8), searchOf(fromIndex, 8));
    // It follows the index like any store: a note edited and scanned, its new passage stored by someone else.
    writeFileSync(join(v.dir, 'n3.md'), '# Note 3\n\nnow about something else.\n');
    await v.scanner.scan();
    fill(new VectorStore(v.idx, 'm8', 8));
    fromFile.refresh();
    fromIndex.refresh();
    assert.deepEqual(fromFile.size, fromIndex.size);
    assert.equal(fromFile.pending(), 0);
    assert.equal(searchOf(fromFile, 8), searchOf(fromIndex, 8));
  } finally {
    v.close();
  }
});

test('a stale snapshot is never used: the scanner ran, another writer stored vectors, or vectors were pruned', async () => {
  const v = await vault(6);
  try {
    const a = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    fill(a, 3);
    a.saveSnapshot();
    // Another writer (same model) adds vectors: the epoch moved.
    fill(new VectorStore(v.idx, 'm8', 8));
    const b = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    assert.equal(b.loadedFrom, 'index');
    assert.equal(b.pending(), 0, 'the other writer’s vectors are there');
    b.saveSnapshot();
    // A note edited and scanned: the generation moved.
    writeFileSync(join(v.dir, 'n0.md'), '# Note 0\n\nrewritten entirely.\n');
    await v.scanner.scan();
    const c = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    assert.equal(c.loadedFrom, 'index');
    assert.equal(c.pending(), 1, 'the edited passage has no vector');
    fill(c);
    c.saveSnapshot();
    assert.equal(new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true }).loadedFrom, 'snapshot');
    c.prune();
    assert.equal(new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true }).loadedFrom, 'index');
  } finally {
    v.close();
  }
});

test('a missing, truncated, corrupt or foreign snapshot file is ignored and the index answers', async () => {
  const v = await vault(8);
  try {
    const a = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    fill(a);
    a.saveSnapshot();
    const path = snapshotPath(v.idx.path, { modelId: 'm8', dim: 8, layout: LAYOUT });
    assert.ok(existsSync(path));
    const good = readFileSync(path);
    const expected = searchOf(new VectorStore(v.idx, 'm8', 8), 8);
    const cases: [string, () => void][] = [
      ['missing', () => rmSync(path)],
      ['empty', () => writeFileSync(path, '')],
      ['truncated', () => writeFileSync(path, good.subarray(0, good.length - 7))],
      ['longer', () => writeFileSync(path, Buffer.concat([good, Buffer.alloc(32)]))],
      ['a flipped byte in the passages', () => writeFileSync(path, Buffer.from(good).fill(0xff, 200, 201))],
      ['garbage', () => writeFileSync(path, Buffer.alloc(good.length, 7))],
      ['a folder', () => (rmSync(path), mkdirSync(path))],
    ];
    for (const [what, damage] of cases) {
      rmSync(path, { recursive: true, force: true });
      writeFileSync(path, good);
      damage();
      const s = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
      assert.equal(s.loadedFrom, 'index', what);
      assert.equal(searchOf(s, 8), expected, what);
      assert.equal(s.pending(), 0, what);
    }
    // The folder in the way: writing fails quietly and recall still has its store.
    assert.equal(new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true }).saveSnapshot(), false);
  } finally {
    v.close();
  }
});

test('two writers at once: whichever file lands, the index vouches for at most one, and nothing is lost', async () => {
  const v = await vault(8);
  try {
    const a = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    fill(a);
    const b = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    const path = snapshotPath(v.idx.path, { modelId: 'm8', dim: 8, layout: LAYOUT });
    // A writes its file and its token; B does the same; then A's rename lands last (the race the rename allows).
    a.saveSnapshot();
    const aFile = join(v.tmp, 'a.bin');
    copyFileSync(path, aFile);
    b.saveSnapshot();
    copyFileSync(aFile, path);
    const c = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    assert.equal(c.loadedFrom, 'index', 'A’s file is not the one the index vouches for');
    assert.equal(searchOf(c, 8), searchOf(b, 8));
    assert.equal(c.saveSnapshot(), true, 'the reader rebuilds it');
    assert.equal(new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true }).loadedFrom, 'snapshot');
  } finally {
    v.close();
  }
});

test('snapshots never mix models: one file per model, and a file of another model or dimension is refused', async () => {
  const v = await vault(5);
  try {
    const m8 = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    const m16 = new VectorStore(v.idx, 'm16', 16, undefined, { snapshot: true });
    fill(m8);
    fill(m16);
    m8.saveSnapshot();
    m16.saveSnapshot();
    const p8 = snapshotPath(v.idx.path, { modelId: 'm8', dim: 8, layout: LAYOUT });
    const p16 = snapshotPath(v.idx.path, { modelId: 'm16', dim: 16, layout: LAYOUT });
    assert.notEqual(p8, p16);
    const s16 = new VectorStore(v.idx, 'm16', 16, undefined, { snapshot: true });
    assert.equal(s16.loadedFrom, 'snapshot');
    assert.equal(searchOf(s16, 16), searchOf(new VectorStore(v.idx, 'm16', 16), 16));
    // m8's bytes where m16's file should be: refused (model, dimension), m16 is read from the index.
    copyFileSync(p8, p16);
    const again = new VectorStore(v.idx, 'm16', 16, undefined, { snapshot: true });
    assert.equal(again.loadedFrom, 'index');
    assert.equal(again.pending(), 0);
  } finally {
    v.close();
  }
});

test('a store read from a snapshot of a partly covered vault hands out the missing passages with their text', async () => {
  const v = await vault(10);
  try {
    const a = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    fill(a, 4);
    const want = a.pendingPassages().map((p) => [p.hash, p.text]);
    a.saveSnapshot();
    const s = new VectorStore(v.idx, 'm8', 8, undefined, { snapshot: true });
    assert.equal(s.loadedFrom, 'snapshot');
    assert.equal(s.pending(), want.length);
    const got = s.pendingPassages().map((p) => [p.hash, p.text]);
    assert.deepEqual(got, want);
    assert.ok(got.every(([, text]) => text.length > 0));
    fill(s);
    assert.equal(s.pending(), 0);
  } finally {
    v.close();
  }
});
