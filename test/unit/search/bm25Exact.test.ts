// The BM25 channel (issue #17): the statement that joins `chunks` after the LIMIT returns exactly what scoring every
// match and taking the best chunk per document returns, on a seeded realistic vault and on hand-made edge cases
// (phrases, prefix-looking input, hostile input, a word in every note, edited and deleted notes); and the length-
// bucketed table without size records (ftsLayout.ts) scores like FTS5's bm25 with sizes. Real SQLite.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openProject, type Project } from '../../../src/core/project';
import { BM25_WEIGHTS, searchBm25, type ChannelHit } from '../../../src/core/search/bm25';
import { bm25Call } from '../../../src/core/search/bm25Weights';
import { buildFtsQuery } from '../../../src/core/search/ftsQuery';
import { FTS_TOKENIZER } from '../../../src/core/index/schema';
import { generateVault } from '../../../bench/lib/vaultGen';
import { tempVault, type TempVault } from '../../helpers/tempVault';

/** Every match scored, no LIMIT anywhere, best chunk per document taken in JS: the answer by definition. */
function reference(p: Project, query: string, pool: number): ChannelHit[] {
  const match = buildFtsQuery(query);
  if (!match) return [];
  const rows = p.index.all(
    `SELECT c.doc_id AS doc_id, c.id AS chunk_id, -${bm25Call(p.index, BM25_WEIGHTS)} AS score
       FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?`,
    [match],
  );
  rows.sort((a, b) => Number(b.score) - Number(a.score) || Number(a.chunk_id) - Number(b.chunk_id));
  const best = new Map<number, ChannelHit>();
  for (const r of rows) {
    const docId = Number(r.doc_id);
    if (best.has(docId) || best.size >= pool) continue;
    best.set(docId, { docId, chunkId: Number(r.chunk_id), rank: best.size + 1, score: Number(r.score) });
  }
  return [...best.values()];
}

const key = (hits: ChannelHit[]) => hits.map((h) => `${h.rank}:${h.docId}:${h.chunkId}:${h.score.toFixed(9)}`);

test('on a seeded 400-note vault every query gets the reference answer and the legacy statement\'s, and scores as bm25 with row sizes does', async () => {
  const v = tempVault();
  const gen = generateVault(v.notes, 400, 7);
  const p = openProject({ vault: v.root });
  try {
    await p.scan();
    let nonEmpty = 0;
    for (const q of gen.queries) {
      for (const pool of [5, 20]) {
        const got = searchBm25(p.index, q, pool);
        assert.deepEqual(key(got), key(reference(p, q, pool)), `query ${JSON.stringify(q)}, pool ${pool}`);
        assert.deepEqual(key(got), key(searchBm25(p.index, q, pool, { strategy: 'legacy' })), `legacy differs for ${JSON.stringify(q)}`);
        if (got.length) nonEmpty++;
      }
    }
    assert.ok(nonEmpty > gen.queries.length, 'most generated queries match something');

    // The same chunks in a classic FTS5 table that keeps every row's size: bm25 there is the score by definition.
    p.index.write(() => {
      p.index.exec(`CREATE VIRTUAL TABLE sized USING fts5(title, heading, body, content='', tokenize='${FTS_TOKENIZER}')`);
      p.index.exec('INSERT INTO sized(rowid, title, heading, body) SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id');
    });
    let hits = 0;
    let sumErr = 0;
    let sameBest = 0;
    let queries = 0;
    for (const q of gen.queries) {
      const match = buildFtsQuery(q);
      if (!match) continue;
      const sized = new Map(
        p.index.all('SELECT rowid AS id, -bm25(sized, 8, 3, 1) AS s FROM sized WHERE sized MATCH ?', [match]).map((r) => [Number(r.id), Number(r.s)]),
      );
      const got = searchBm25(p.index, q, 20);
      if (!got.length) continue;
      queries++;
      const best = [...sized.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
      if (got[0].chunkId === best) sameBest++;
      for (const h of got) {
        const want = sized.get(h.chunkId);
        assert.ok(want !== undefined, `hit ${h.chunkId} for ${q} is a match of the sized table too`);
        const err = Math.abs(h.score - want) / want;
        // A row's length is rounded to its bucket's (±10 %), which moves its score by less than that.
        assert.ok(err < 0.08, `score ${h.score} vs ${want} for ${JSON.stringify(q)}`);
        sumErr += err;
        hits++;
      }
    }
    assert.ok(sumErr / hits < 0.02, `mean relative score error ${sumErr / hits}`);
    assert.ok(sameBest >= queries * 0.85, `best chunk as with sizes for ${sameBest} of ${queries} queries`);
  } finally {
    p.close();
    v.cleanup();
  }
});

let v: TempVault;
let p: Project;
const filler = (i: number) => `Paragraph ${i} talks about ordinary engineering matters and the shared word everywhere.`;
before(async () => {
  v = tempVault({
    'busy.md': `# Lock contention\nThe writer fails with SQLITE_BUSY when another process holds the lock.\n\n${filler(1)}\n`,
    'busy-words.md': `# Words apart\nSQLite was busy all day, the busy server never slept.\n\n${filler(2)}\n`,
    'lockstep.md': `# Lockstep releases\nWe prefer lockstep releases of all services.\n\n${filler(3)}\n`,
    'lock.md': `# Lock files\nA lock file marks the owner.\n\n${filler(4)}\n`,
    'everywhere.md': `# Everywhere\nThis note is about everywhere itself.\n\n${filler(5)}\n`,
    'edited.md': `# Edited note\nIt mentions zeppelins once.\n\n${filler(6)}\n`,
    'doomed.md': `# Doomed note\nIt mentions quokkas once.\n\n${filler(7)}\n`,
  });
  p = openProject({ vault: v.root });
  await p.scan();
});
after(() => {
  p.close();
  v.cleanup();
});

const paths = (hits: ChannelHit[]) => {
  const byId = new Map(p.index.all('SELECT id, path FROM documents').map((r) => [Number(r.id), String(r.path)]));
  return hits.map((h) => byId.get(h.docId));
};

test('a symbol becomes a phrase: SQLITE_BUSY finds the note that has it, not the one with both words apart first', () => {
  const hits = searchBm25(p.index, 'SQLITE_BUSY', 10);
  assert.deepEqual(paths(hits), ['busy.md']);
  assert.deepEqual(key(hits), key(reference(p, 'SQLITE_BUSY', 10)));
});

test('a trailing * is text, not a prefix operator: lock* matches the word lock, never lockstep', () => {
  const got = paths(searchBm25(p.index, 'lock*', 10));
  assert.ok(got.includes('lock.md') && got.includes('busy.md'), `got ${got.join(', ')}`);
  assert.ok(!got.includes('lockstep.md'));
});

test('hostile input never reaches FTS5 as syntax', () => {
  for (const q of ['"unbalanced', 'a AND', 'NEAR(', 'Option<&mut T>', 'title:lock', '*', ')(', '^lock', '-lock', '{title}: x']) {
    const hits = searchBm25(p.index, q, 10);
    assert.deepEqual(key(hits), key(reference(p, q, 10)), q);
  }
  assert.deepEqual(searchBm25(p.index, '&&& ---', 10), []);
});

test('a word in every note still ranks (its idf is FTS5 floor value), the note titled with it first, one hit per note', () => {
  const hits = searchBm25(p.index, 'everywhere', 20);
  assert.equal(hits.length, 7);
  assert.equal(new Set(hits.map((h) => h.docId)).size, 7);
  assert.equal(paths(hits)[0], 'everywhere.md');
  assert.deepEqual(key(hits), key(reference(p, 'everywhere', 20)));
});

test('an edited note and a deleted one leave no stale rows behind in what BM25 finds', async () => {
  assert.deepEqual(paths(searchBm25(p.index, 'zeppelins', 10)), ['edited.md']);
  assert.deepEqual(paths(searchBm25(p.index, 'quokkas', 10)), ['doomed.md']);
  v.write('edited.md', `# Edited note\nIt now mentions airships instead.\n\n${filler(6)}\n`);
  const { rmSync } = await import('node:fs');
  rmSync(join(v.notes, 'doomed.md'));
  await p.scan();
  assert.deepEqual(searchBm25(p.index, 'zeppelins', 10), []);
  assert.deepEqual(searchBm25(p.index, 'quokkas', 10), []);
  assert.deepEqual(paths(searchBm25(p.index, 'airships', 10)), ['edited.md']);
  // Every FTS row belongs to a live chunk: as many rows match the shared word as there are chunks holding it.
  const fts = Number(p.index.get("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'everywhere'")!.n);
  const live = Number(p.index.get(
    "SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.text LIKE '%everywhere%' OR c.heading LIKE '%everywhere%' OR d.title LIKE '%everywhere%'",
  )!.n);
  assert.equal(fts, live);
});
