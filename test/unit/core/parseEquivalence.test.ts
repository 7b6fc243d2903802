import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseNote } from '../../../src/core/vault/markdown';
import { chunkNote } from '../../../src/core/index/chunk';
import { IndexDb } from '../../../src/core/index/db';
import { DocumentWriter } from '../../../src/core/index/store';
import { notes } from './parseCorpus';
import { parseDigest, rowsDigest, writeRows } from './parseDigest';

// Issue 17: the parse path was made faster; what it produces must not change. parseDigests.json records, for every
// note of parseCorpus.ts, a digest of what the code before the speed-ups (5809ead) parsed and chunked, and digests
// of the index rows its writer wrote. The live code must produce the same bytes (frontmatter key order included).
// A deliberate change to what the parser extracts regenerates the file — and bumps SCHEMA_VERSION.

const RECORDED = JSON.parse(readFileSync(join(__dirname, 'parseDigests.json'), 'utf8')) as {
  notes: number;
  perNote: [string, string][];
  rows: Record<string, { rows: number; sha256: string }>;
};

test('the live parser and chunker produce exactly what the pre-change code produced', () => {
  const all = notes();
  assert.ok(all.length > 380 + 300, `corpus found (${all.length} notes)`);
  assert.equal(all.length, RECORDED.notes, 'the same notes as when the digests were recorded');
  let withLinks = 0;
  for (const [i, { rel, raw }] of all.entries()) {
    const [wantRel, want] = RECORDED.perNote[i];
    assert.equal(rel, wantRel);
    const note = parseNote(raw, rel);
    assert.equal(parseDigest(note, chunkNote(note)), want, `parseNote/chunkNote output differs for ${rel}`);
    if (note.links.length) withLinks++;
  }
  assert.ok(withLinks > 50, `links were exercised (${withLinks} notes with links)`);
});

test('the index rows written by the live writer equal those the pre-change writer wrote (documents, chunks, links, FTS)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k0parse-rows-'));
  const idx = IndexDb.open(join(dir, 'live.db'));
  try {
    const got = rowsDigest(writeRows(idx, notes(), (i) => new DocumentWriter(i), parseNote));
    assert.ok(got.chunks.rows > 1000 && got.links.rows > 200, `rows written (${got.chunks.rows} chunks, ${got.links.rows} links)`);
    assert.deepStrictEqual(got, RECORDED.rows);
  } finally {
    idx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
