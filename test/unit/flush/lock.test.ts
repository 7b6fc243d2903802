import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { flushNote } from '../../../src/core/flush';
import { acquireFlushLock } from '../../../src/core/flush/lock';
import { tempProject } from './helpers';

// The deadline (3 s) is far below the 30 s a lock without owner file used to block every flush for.
const DEADLINE_MS = 3_000;

test('a flush lock directory without an owner file (its writer was killed after mkdir) is taken over, not waited out for 30 s', async () => {
  const p = tempProject();
  const lock = join(p.k0Dir, 'flush.lock');
  mkdirSync(lock);
  const old = new Date(Date.now() - 2_000);
  utimesSync(lock, old, old);
  const r = await flushNote(p, { title: 'After an ownerless lock', content: 'x', date: '2026-12-01' }, { lockTimeoutMs: DEADLINE_MS });
  assert.equal(r.outcome, 'created');
  assert.ok(!existsSync(lock));
});

test('a brand-new ownerless lock is respected for its grace period, then taken over within the deadline', async () => {
  const p = tempProject();
  const lock = join(p.k0Dir, 'flush.lock');
  mkdirSync(lock);
  const r = await flushNote(p, { title: 'After a fresh ownerless lock', content: 'x', date: '2026-12-01' }, { lockTimeoutMs: DEADLINE_MS });
  assert.equal(r.outcome, 'created');
});

test('a torn owner file counts as no owner file', async () => {
  const p = tempProject();
  const lock = join(p.k0Dir, 'flush.lock');
  mkdirSync(lock);
  writeFileSync(join(lock, 'owner'), '{"pid": 12');
  const old = new Date(Date.now() - 2_000);
  utimesSync(lock, old, old);
  const r = await flushNote(p, { title: 'After a torn owner', content: 'x', date: '2026-12-01' }, { lockTimeoutMs: DEADLINE_MS });
  assert.equal(r.outcome, 'created');
  assert.deepEqual(readdirSync(p.k0Dir).filter((n) => n.includes('lock')), [], 'no stale lock copy left');
});

test('a lock whose owner pid is dead is taken over at once; a live owner is never broken', () => {
  const p = tempProject();
  const lock = join(p.k0Dir, 'flush.lock');
  const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
  mkdirSync(lock);
  writeFileSync(join(lock, 'owner'), JSON.stringify({ pid: dead, host: hostname(), at: Date.now() }));
  const h = acquireFlushLock(p.k0Dir, 100);
  // Held by us (alive): a second acquirer gives up with WRITE_CONFLICT instead of breaking it.
  assert.throws(() => acquireFlushLock(p.k0Dir, 200), (e: { code?: string }) => e.code === 'WRITE_CONFLICT');
  h.release();
  assert.ok(!existsSync(lock));
});
