// IndexDb.read (db.ts): the statements of one recall run in one read transaction — the `<db>.lock` directory is
// taken once for all of them, so another process cannot write between two of them (a recall sees one state of the
// index), and the lock is gone when read() returns or throws. Real SQLite, a real second process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexDb } from '../../../src/core/index/db';

const REPO = join(__dirname, '..', '..', '..');

/** Another process that tries one write with a short wait and prints "wrote" or the error code. */
function writeFromAnotherProcess(dbPath: string, dir: string): string {
  const file = join(dir, 'writer.ts');
  writeFileSync(
    file,
    `import { IndexDb } from ${JSON.stringify(join(REPO, 'src/core/index/db'))};
let idx: IndexDb | undefined;
try {
  idx = IndexDb.open(${JSON.stringify(dbPath)}, () => {}, { busyTimeoutMs: 300 });
  idx.write(() => idx!.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('other', 'x')"));
  console.log('wrote');
} catch (e) { console.log((e as { code?: string }).code ?? String(e)); }
finally { idx?.close(); }\n`,
  );
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: REPO, encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`.trim();
}

test('a read transaction holds the index lock across its statements and releases it after, also when it throws', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k0read-'));
  const path = join(dir, 'index.db');
  const idx = IndexDb.open(path);
  try {
    idx.write(() => idx.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('a', '1')"));
    const seen = idx.read(() => {
      const first = String(idx.get("SELECT value FROM meta WHERE key = 'a'")?.value);
      assert.ok(existsSync(`${path}.lock`), 'the lock is held between the statements of one read');
      const other = writeFromAnotherProcess(path, dir);
      const second = idx.get("SELECT value FROM meta WHERE key = 'other'");
      return { first, other, second };
    });
    assert.equal(seen.first, '1');
    assert.equal(seen.other, 'INDEX_BUSY', 'no other process writes in the middle of a read');
    assert.equal(seen.second, null);
    assert.ok(!existsSync(`${path}.lock`), 'released after the read');
    assert.equal(writeFromAnotherProcess(path, dir), 'wrote');
    assert.throws(() => idx.read(() => {
      idx.get('SELECT 1 AS x');
      throw new Error('boom');
    }), /boom/);
    assert.ok(!existsSync(`${path}.lock`), 'released after a read that threw');
    assert.equal(String(idx.get("SELECT value FROM meta WHERE key = 'other'")?.value), 'x');
  } finally {
    idx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
