// The INTERNAL errors of the stress suite's concurrency run ("vtable constructor failed: chunks_fts"): FTS5 reads
// its config table when a connection first touches the virtual table, and when another process holds the lock at
// that moment SQLite reports only the constructor failure, not SQLITE_BUSY. That first touch must wait the lock
// out like every other access. The other process is real (test/helpers/indexLockHolder.cjs on the same file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { IndexDb } from '../../../src/core/index/db';
import { openProject } from '../../../src/core/project';
import { tempVault } from '../../helpers/tempVault';

const HOLDER = join(__dirname, '..', '..', 'helpers', 'indexLockHolder.cjs');

test('a connection whose first FTS5 query meets another process’s lock waits for it (no "vtable constructor failed")', { timeout: 60_000 }, async () => {
  const v = tempVault({ 'a.md': '# Alpha\n\nthe alpha decision about zeppelins\n' });
  const indexPath = join(v.root, '.k0maru', 'index.db');
  const p = openProject({ vault: v.root });
  await p.scan();
  p.close();
  // A fresh handle that has not touched chunks_fts yet (its schema is read, the virtual table not constructed).
  const db = IndexDb.open(indexPath);
  // One long hold, then a long gap: the first FTS5 touch lands inside the hold.
  const holder = spawn(process.execPath, [HOLDER, indexPath, '600', '30000'], { stdio: ['pipe', 'pipe', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      holder.stdout!.on('data', (d) => ((out += d), out.includes('holding') && resolve()));
      holder.on('exit', (c) => reject(new Error(`holder exited ${c}`)));
    });
    const rows = db.all("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'zeppelins'");
    assert.equal(rows.length, 1);
  } finally {
    holder.stdin!.end();
    await new Promise((r) => holder.on('close', r));
    db.close();
    v.cleanup();
  }
});
