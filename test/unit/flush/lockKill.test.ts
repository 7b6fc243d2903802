// A flush killed while it takes its lock must leave nothing that outlives the next run: the stress suite's random
// SIGKILLs found a `flush.lock` left behind after the next scan (the kill landed between the lock's mkdir and its
// owner file, and a lock without an owner is respected for its grace period). Real processes, real SIGKILL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { flushNote } from '../../../src/core/flush';
import { recoverIfPending } from '../../../src/core/flush/pending';
import { tempProject } from './helpers';

const LOCK_MODULE = join(__dirname, '..', '..', '..', 'src', 'core', 'flush', 'lock.ts');

/** Takes the flush lock in a child process that SIGKILLs itself at `point` (K0MARU_FAULT), or once it holds it. */
function killWhileLocking(k0Dir: string, point: string | undefined): void {
  const code = `require(${JSON.stringify(LOCK_MODULE)}).acquireFlushLock(${JSON.stringify(k0Dir)}, 1000); process.kill(process.pid, 'SIGKILL');`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { env: { ...process.env, K0MARU_FAULT: point ? `flush:${point}` : '' }, encoding: 'utf8' });
  assert.equal(r.signal, 'SIGKILL', `the child reached ${point}: ${r.stderr}`);
}

const lockLeftovers = (k0Dir: string) => readdirSync(k0Dir).filter((n) => n.includes('flush.lock'));

test('SIGKILL while the flush lock is being taken: the next run (a scan’s recovery) leaves no lock behind, and a flush proceeds at once', async () => {
  const p = tempProject();
  killWhileLocking(p.k0Dir, 'lock-take');
  assert.notDeepEqual(lockLeftovers(p.k0Dir), [], 'the killed process left its lock in the making');
  await recoverIfPending(p);
  assert.deepEqual(lockLeftovers(p.k0Dir), [], 'the next run cleared it');
  const t0 = Date.now();
  const r = await flushNote(p, { title: 'After a killed locker', content: 'x', date: '2026-12-01' }, { lockTimeoutMs: 500 });
  assert.equal(r.outcome, 'created');
  assert.ok(Date.now() - t0 < 500, 'nothing to wait out');
  assert.deepEqual(lockLeftovers(p.k0Dir), []);
});

test('SIGKILL with the flush lock held (owner written): the next run clears it', async () => {
  const p = tempProject();
  killWhileLocking(p.k0Dir, undefined);
  assert.deepEqual(lockLeftovers(p.k0Dir), ['flush.lock']);
  await recoverIfPending(p);
  assert.deepEqual(lockLeftovers(p.k0Dir), []);
});
