// A schema change rebuilds an index of the previous layout from the Markdown (issue #17: v5 moved chunks_fts to
// per-length-bucket columns without size records). An index written by v4 — its own chunks_fts with three columns
// and contentless_delete — is opened, dropped, recreated and refilled by the next scan; BM25 then finds the notes,
// and edits and deletions through FTS5's 'delete' command leave an index that passes FTS5's integrity check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { IndexDb } from '../../../src/core/index/db';
import { SCHEMA_VERSION } from '../../../src/core/index/schema';
import { COLUMNS } from '../../../src/core/index/ftsLayout';
import { openProject } from '../../../src/core/project';
import { searchBm25 } from '../../../src/core/search/bm25';
import { tempVault } from '../../helpers/tempVault';

const V4_FTS = `CREATE VIRTUAL TABLE chunks_fts USING fts5(title, heading, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`;

test('an index of schema 4 is rebuilt from Markdown into the bucketed layout, and searches, edits and deletes work on it', async () => {
  const v = tempVault({
    'redis.md': '# Redis locks\nAcquire a Redis mutex before charging the card.\n',
    'deploy.md': '# Deploying\nCanary first, then the whole fleet; rollback is one command.\n',
  });
  const dbPath = join(v.root, '.k0maru', 'index.db');
  try {
    // What a v4 build left behind: its tables, a row in its FTS table, its version in meta and in the header.
    const old = IndexDb.open(dbPath);
    old.write(() => {
      old.exec('DROP TABLE chunks_fts');
      old.exec(V4_FTS);
      old.run("INSERT INTO chunks_fts(rowid, title, heading, body) VALUES (1, 'stale', 'stale', 'stale text')");
      old.run("UPDATE meta SET value = '4' WHERE key = 'schema_version'");
      old.exec('PRAGMA user_version = 4');
    });
    old.close();

    const logs: string[] = [];
    const p = openProject({ vault: v.root, log: (_l, m) => logs.push(m) });
    try {
      const cols = p.index.all('SELECT name FROM pragma_table_info(\'chunks_fts\')').map((r) => String(r.name));
      assert.deepEqual(cols, COLUMNS, 'chunks_fts has the bucketed columns');
      assert.ok(logs.some((m) => m.includes(`index schema 4 != ${SCHEMA_VERSION}`)), logs.join('\n'));
      assert.equal(Number(p.index.get('PRAGMA user_version')?.user_version), SCHEMA_VERSION);
      assert.deepEqual(searchBm25(p.index, 'stale', 10), [], 'nothing of the old FTS table survives');
      await p.scan();
      const paths = (q: string) => {
        const byId = new Map(p.index.all('SELECT id, path FROM documents').map((r) => [Number(r.id), String(r.path)]));
        return searchBm25(p.index, q, 10).map((h) => byId.get(h.docId));
      };
      assert.deepEqual(paths('redis mutex'), ['redis.md']);
      assert.deepEqual(paths('canary rollback'), ['deploy.md']);

      v.write('redis.md', '# Redis locks\nNow a Postgres advisory lock instead.\n');
      rmSync(join(v.notes, 'deploy.md'));
      await p.scan();
      assert.deepEqual(paths('mutex'), []);
      assert.deepEqual(paths('canary'), []);
      assert.deepEqual(paths('advisory'), ['redis.md']);
      // 'delete' must be given exactly what was indexed; a mismatch would corrupt the index, which this check finds.
      p.index.write(() => p.index.exec("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 0)"));
      assert.equal(Number(p.index.get('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH \'lock\'')?.n), 1);
    } finally {
      p.close();
    }
  } finally {
    v.cleanup();
  }
});

test('an index of schema 5 (unstemmed) is rebuilt with Porter stemming, and its vectors are kept', async () => {
  const v = tempVault({ 'billing.md': '# Billing\nThe card was charged twice when the gateway retried.\n' });
  const dbPath = join(v.root, '.k0maru', 'index.db');
  try {
    const first = openProject({ vault: v.root });
    await first.scan();
    first.close();
    // What a v5 build left: the same layout with the unstemmed tokenizer, its version, and a stored vector.
    const old = IndexDb.open(dbPath);
    old.write(() => {
      old.exec('DROP TABLE chunks_fts');
      old.exec(`CREATE VIRTUAL TABLE chunks_fts USING fts5(${COLUMNS.join(', ')}, content='', columnsize=0, tokenize='unicode61 remove_diacritics 2')`);
      old.exec("CREATE TABLE IF NOT EXISTS vectors(model TEXT NOT NULL, hash TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY(model, hash)) WITHOUT ROWID");
      old.run("INSERT INTO vectors(model, hash, vec) VALUES ('m', 'h', x'00000000')");
      old.run("UPDATE meta SET value = '5' WHERE key = 'schema_version'");
      old.exec('PRAGMA user_version = 5');
    });
    old.close();

    const p = openProject({ vault: v.root });
    try {
      assert.equal(Number(p.index.get('PRAGMA user_version')?.user_version), SCHEMA_VERSION);
      assert.equal(Number(p.index.get("SELECT count(*) AS n FROM vectors WHERE model = 'm'")?.n), 1, 'vectors survive the rebuild');
      await p.scan();
      // Other inflections than the note's find it: the rebuilt table stems.
      for (const q of ['charging', 'retries', 'cards']) assert.equal(searchBm25(p.index, q, 5).length, 1, q);
    } finally {
      p.close();
    }
  } finally {
    v.cleanup();
  }
});
