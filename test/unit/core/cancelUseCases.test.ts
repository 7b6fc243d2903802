import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { flushNote } from '../../../src/core/flush';
import { offloadLog } from '../../../src/core/offload';
import { inspectLogNode } from '../../../src/core/offload/inspect';
import { gcSession } from '../../../src/core/gc';
import { distillSkill } from '../../../src/core/distill/distill';
import { guardCheck } from '../../../src/core/guard/check';
import { pathsForProject } from '../../../src/core/vault/paths';
import { tempVault } from '../../helpers/tempVault';

/**
 * MCP cancellation reaches the use cases (guard, flush, offload, inspect, GC, distill): a withdrawn request ends with
 * CANCELLED and leaves nothing half-written. The MCP wiring and the server's health are tested over stdio in
 * test/unit/mcp/cancel.test.ts.
 */

const isCancelled = (e: unknown) => (e as { code?: string }).code === 'CANCELLED';
const aborted = () => {
  const c = new AbortController();
  c.abort();
  return c.signal;
};
const buildLog = (n: number) => Array.from({ length: n }, (_, i) => `   Compiling crate-${i} v0.${i}.0 (/src/crate-${i})`).join('\n') + '\nerror[E0382]: borrow of moved value: `x`\n  --> src/main.rs:3:5\n';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

test('a cancelled flush writes nothing (the only cancellation point is before the commit)', async () => {
  const v = tempVault({ 'old.md': '---\ntitle: Old\nstatus: accepted\n---\n# Old\n' });
  try {
    const before = filesUnder(v.root);
    await assert.rejects(flushNote(pathsForProject(v.root), { title: 'Use a database lock', content: 'Because.', category: 'decision', supersedes: 'old' }, { signal: aborted() }), isCancelled);
    assert.deepEqual(filesUnder(v.root), before);
    // The same flush without a cancellation writes the note and the supersession: the vault was usable all along.
    const r = await flushNote(pathsForProject(v.root), { title: 'Use a database lock', content: 'Because.', category: 'decision', supersedes: 'old' });
    assert.equal(r.outcome, 'created');
    assert.deepEqual(r.superseded, ['old.md']);
  } finally {
    v.cleanup();
  }
});

test('an offload cancelled while its log streams in removes its temp file and stores nothing', async () => {
  const v = tempVault();
  const paths = pathsForProject(v.root);
  const ctl = new AbortController();
  async function* stream() {
    yield buildLog(400); // past the threshold: the raw log is spilled to a temp file in refs/
    ctl.abort(); // the client withdraws mid-stream
    yield buildLog(400);
  }
  try {
    await assert.rejects(offloadLog(paths, { stream: stream(), threshold: 30, signal: ctl.signal }), isCancelled);
    assert.deepEqual(filesUnder(paths.refsDir), [], 'no raw log, no temp file, no ledger line');
    await assert.rejects(offloadLog(paths, { text: buildLog(400), signal: aborted() }), isCancelled);
    assert.deepEqual(filesUnder(paths.refsDir), []);
  } finally {
    v.cleanup();
  }
});

test('inspect, GC and distill end with CANCELLED when their request was withdrawn; distill writes no note', async () => {
  const v = tempVault();
  const paths = pathsForProject(v.root);
  try {
    const off = await offloadLog(paths, { text: buildLog(400), threshold: 30 });
    await assert.rejects(inspectLogNode(paths, { node_id: off.nodeId!, grep: 'E0382', signal: aborted() }), isCancelled);
    const refs = filesUnder(paths.refsDir);

    const trajectory = { session_id: 's1', turns: [{ role: 'user', content: 'build it' }, { role: 'tool', tool_name: 'bash', content: buildLog(300).replace(/crate-/g, 'pkg-') }, ...Array.from({ length: 8 }, (_, i) => ({ role: 'assistant', content: `step ${i}` }))] };
    await assert.rejects(gcSession(paths, { trajectory, hot_window: 2, signal: aborted() }), isCancelled);
    assert.deepEqual(filesUnder(paths.refsDir), refs, 'GC offloaded nothing');

    const notes = filesUnder(paths.notesRoot);
    await assert.rejects(distillSkill(paths, { raw_trace: buildLog(10) }, { signal: aborted() }), isCancelled);
    await assert.rejects(distillSkill(paths, { node_id: off.nodeId }, { signal: aborted() }), isCancelled);
    assert.deepEqual(filesUnder(paths.notesRoot), notes, 'no skill note');
  } finally {
    v.cleanup();
  }
});

test('a guard check whose request was withdrawn ends with CANCELLED', async () => {
  const v = tempVault({ 'adr-001.md': '---\ntitle: ADR-001\nstatus: accepted\n---\n# ADR-001\n\n## Invariants\n- deny: `SELECT *`\n' });
  try {
    const diff = 'diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,1 +1,2 @@\n package a\n+var q = "SELECT * FROM t"\n';
    await assert.rejects(guardCheck({ diff, cwd: v.root, vault: v.root, env: {}, signal: aborted() }), isCancelled);
    const r = await guardCheck({ diff, cwd: v.root, vault: v.root, env: {} });
    assert.equal(r.source, 'diff');
  } finally {
    v.cleanup();
  }
});
