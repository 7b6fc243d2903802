import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recoverPendingFlush } from '../../../src/core/flush/recover';
import { pathsForProject } from '../../../src/core/vault/paths';
import { crashProject, NEW, OLD, pairState } from './crashKit';

/** A project whose superseding flush was SIGKILLed at `point` (in a child running the flush from source). */
function killedAt(point: string) {
  const p = crashProject();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'crashWorker.ts'), p.root, 'none', '0'], { env: { ...process.env, K0MARU_FAULT: `flush:${point}` } });
  assert.equal(r.signal, 'SIGKILL', String(r.stderr));
  return p;
}

test('an old note edited by a person after the crash keeps their edit and still gets marked superseded', () => {
  const p = killedAt('rename-0');
  const old = join(p.notes, OLD[0]);
  writeFileSync(old, readFileSync(old, 'utf8') + '\nA line a person added.\n');
  const r = recoverPendingFlush(pathsForProject(p.root));
  assert.equal(r.action, 'rolled-forward');
  const text = readFileSync(old, 'utf8');
  assert.match(text, /A line a person added/);
  assert.match(text, /^status: superseded$/m);
  assert.ok(r.warnings.some((w) => w.includes(OLD[0])), r.warnings.join('\n'));
});

test("the new note's name taken by someone else's file before recovery: the flush is undone, their file kept", () => {
  const p = killedAt('create');
  writeFileSync(join(p.notes, NEW), 'someone else wrote this\n');
  const r = recoverPendingFlush(pathsForProject(p.root));
  assert.equal(r.action, 'rolled-back');
  assert.equal(readFileSync(join(p.notes, NEW), 'utf8'), 'someone else wrote this\n');
  for (const rel of OLD) assert.equal(readFileSync(join(p.notes, rel), 'utf8'), p.originals.get(rel));
});

test('a project moved to another folder after the crash still recovers (the journal names the vault relative to the project)', () => {
  const p = killedAt('rename-1');
  const moved = `${p.root}-moved`;
  renameSync(p.root, moved);
  const r = recoverPendingFlush(pathsForProject(moved));
  assert.equal(r.action, 'rolled-forward');
  assert.equal(pairState({ ...p, root: moved, notes: join(moved, '.k0maru', 'wiki') }), 'whole');
});

test('a damaged journal, or one naming a path outside the vault, is moved aside with a warning, never applied', () => {
  const outside = JSON.stringify({ version: 1, state: 'apply', pid: 1, at: 0, notesRoot: '.k0maru/wiki', ops: [{ kind: 'create', rel: '../../../x.md', temp: '.x.md.k0-1-0123456789ab.tmp', text: 'x' }] });
  for (const bad of ['{"version":1,"state":"apply","ops":[{"kind":"create"', outside]) {
    const p = killedAt('rename-0');
    writeFileSync(join(p.root, '.k0maru', 'flush.journal'), bad);
    const r = recoverPendingFlush(pathsForProject(p.root));
    assert.equal(r.action, 'set-aside');
    assert.ok(!existsSync(join(p.root, '.k0maru', 'flush.journal')));
    assert.ok(readdirSync(join(p.root, '.k0maru')).some((n) => n.startsWith('flush.journal.invalid-')));
    assert.ok(!existsSync(join(p.root, '..', 'x.md')));
  }
});
