import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexDb } from '../../../src/core/index/db';
import { wasmDatabaseClass } from '../../../src/core/index/engineWasm';
import { SCHEMA_VERSION } from '../../../src/core/index/schema';

// Issue 17 item 1: a one-shot process opening a current index should read one header field, not look the schema
// up nor create anything. Every SQL text IndexDb hands the real engine goes through Database#exec or #prepare
// (get/all/run prepare too), so recording those two shows what an open costs.
function recordSql<T>(fn: () => T): { out: T; sql: string[] } {
  // The engine's own copy of node-sqlite3-wasm (engineWasm.ts loads one whose VFS it has fixed).
  const proto = wasmDatabaseClass().prototype as unknown as Record<'exec' | 'prepare', (this: unknown, sql: string) => unknown>;
  const exec = proto.exec;
  const prepare = proto.prepare;
  const sql: string[] = [];
  proto.exec = function (s: string) {
    sql.push(s);
    return exec.call(this, s);
  };
  proto.prepare = function (s: string) {
    sql.push(s);
    return prepare.call(this, s);
  };
  try {
    return { out: fn(), sql };
  } finally {
    proto.exec = exec;
    proto.prepare = prepare;
  }
}

function tempIndex(): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'k0schema-'));
  return { path: join(dir, 'index.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('opening a current index creates nothing and does not look the schema up', () => {
  const t = tempIndex();
  try {
    const first = recordSql(() => IndexDb.open(t.path));
    first.out.close();
    assert.ok(first.sql.some((s) => /CREATE TABLE/.test(s)), 'a new file gets the full setup');
    const again = recordSql(() => IndexDb.open(t.path));
    try {
      assert.deepEqual(
        again.sql.filter((s) => /CREATE|sqlite_master|\bmeta\b|INSERT/i.test(s)),
        [],
        `statements on a current index: ${again.sql.join(' | ')}`,
      );
      assert.ok(again.sql.some((s) => /PRAGMA user_version/.test(s)));
      // Still a working index.
      assert.equal(Number(again.out.get("SELECT value FROM meta WHERE key='schema_version'")?.value), SCHEMA_VERSION);
    } finally {
      again.out.close();
    }
  } finally {
    t.cleanup();
  }
});

test('an index set up before the header stamp keeps its rows and is stamped once', () => {
  const t = tempIndex();
  try {
    let idx = IndexDb.open(t.path);
    idx.run("INSERT INTO documents(path, hash, mtime_ms, size, title, tier) VALUES ('a.md', 'h', 1, 1, 'A', 'L2')");
    idx.exec('PRAGMA user_version = 0'); // what every earlier build left behind
    idx.close();
    idx = IndexDb.open(t.path);
    assert.equal(Number(idx.get('SELECT count(*) AS n FROM documents')?.n), 1, 'a current schema is not rebuilt');
    assert.equal(Number(idx.get('PRAGMA user_version')?.user_version), SCHEMA_VERSION);
    idx.close();
    const again = recordSql(() => IndexDb.open(t.path));
    again.out.close();
    assert.deepEqual(again.sql.filter((s) => /sqlite_master|CREATE/.test(s)), []);
  } finally {
    t.cleanup();
  }
});

for (const [label, meta, stamp] of [
  ['an older schema', String(SCHEMA_VERSION - 1), 0],
  ['a newer build (header stamped with another version)', String(SCHEMA_VERSION + 1), SCHEMA_VERSION + 1],
] as const) {
  test(`${label} is still rebuilt, vectors kept`, () => {
    const t = tempIndex();
    try {
      let idx = IndexDb.open(t.path);
      idx.run("INSERT INTO documents(path, hash, mtime_ms, size, title, tier) VALUES ('a.md', 'h', 1, 1, 'A', 'L2')");
      idx.exec('CREATE TABLE vectors(model TEXT, hash TEXT, vec BLOB)');
      idx.run("INSERT INTO vectors VALUES ('m', 'h', x'00')");
      idx.run("UPDATE meta SET value = ? WHERE key = 'schema_version'", [meta]);
      idx.exec(`PRAGMA user_version = ${stamp}`);
      idx.close();
      const logs: string[] = [];
      idx = IndexDb.open(t.path, (_l, m) => logs.push(m));
      try {
        assert.equal(Number(idx.get('SELECT count(*) AS n FROM documents')?.n), 0, 'rows of the other schema are dropped');
        assert.equal(Number(idx.get('SELECT count(*) AS n FROM vectors')?.n), 1, 'vectors survive a schema change');
        assert.equal(Number(idx.get('PRAGMA user_version')?.user_version), SCHEMA_VERSION);
        assert.ok(logs.some((m) => m.includes(`index schema ${meta} != ${SCHEMA_VERSION}`)), logs.join('\n'));
      } finally {
        idx.close();
      }
    } finally {
      t.cleanup();
    }
  });
}
