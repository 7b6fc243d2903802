import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../../src/mcp/server';
import { JOURNAL_FILE, LOCK_DIR } from '../../../src/core/flush/pending';
import { DIST_MCP, ensureBuilt } from '../../helpers/build';
import { textOf } from '../../helpers/mcpClient';
import { makeRepo, type TempRepo } from '../guard/helpers';

/**
 * MCP cancellation (notifications/cancelled, sent by the SDK client when the AbortSignal of a callTool fires) for
 * guard_check, flush_session and the economy tools, through the built server over stdio: the withdrawn call stops,
 * the server keeps answering, and a cancelled flush leaves either no trace or the whole note with its supersession.
 */

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };
const ADR = '---\ntitle: ADR-001 no eval\nstatus: accepted\n---\n# ADR-001: no eval\n\n## Invariants\n\n- deny: `eval(` | id: NO-EVAL\n';

/**
 * A `git` earlier on PATH that logs its arguments and holds the guard's `git diff` (the one with `--src-prefix=a/`,
 * src/core/guard/diffSource.ts) until a file exists, then runs the real git. Only that one: the scan before every
 * call runs git diffs of its own (staleness), which these tests do not withdraw.
 */
function holdingGit(): { dir: string; bin: string; log: string; release: string; pids: string } {
  const dir = mkdtempSync(join(tmpdir(), 'k0-held-git-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const log = join(dir, 'git.log');
  const release = join(dir, 'release-git');
  const pids = join(dir, 'held-pids');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\necho "$*" >> '${log}'\ncase " $* " in *" diff "*" --src-prefix=a/ "*) echo $$ >> '${pids}'; while [ ! -e '${release}' ]; do sleep 0.02; done ;; esac\nexec /usr/bin/git "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  return { dir, bin, log, release, pids };
}

/** The held `git diff` processes still running (their pids, as the wrapper recorded them). */
function heldGits(git: { pids: string }): number[] {
  if (!existsSync(git.pids)) return [];
  return readFileSync(git.pids, 'utf8').split('\n').filter(Boolean).map(Number).filter((pid) => alive(pid));
}

async function until(what: string, cond: () => boolean, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`${what} (waited ${deadlineMs} ms)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function connect(root: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [DIST_MCP, '--vault', root], env: { ...ENV, ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'k0maru-cancel-test', version: '1.0.0' });
  return { transport, client, stderr: () => stderr };
}

/** Calls a tool and withdraws it after `afterMs` (0: as soon as it was sent). Resolves with how it ended. */
async function cancelled(client: Client, name: string, args: Record<string, unknown>, afterMs: number): Promise<'cancelled' | 'answered'> {
  const ctl = new AbortController();
  const call = client.callTool({ name, arguments: args }, undefined, { signal: ctl.signal, timeout: 120_000 });
  setTimeout(() => ctl.abort('the user pressed stop'), afterMs);
  return call.then(
    () => 'answered',
    (err: Error) => {
      assert.match(String(err), /the user pressed stop|abort/i, 'the call ended because it was cancelled');
      return 'cancelled';
    },
  );
}

async function healthy(client: Client): Promise<void> {
  const r = await client.callTool({ name: 'recall_memory', arguments: { query: 'eval', mode: 'bm25' } }, undefined, { timeout: 60_000 });
  assert.ok(!r.isError, textOf(r));
  assert.match(textOf(r), /adr-001/);
}

/** What the vault holds for attempt `i`: its new note (path) and whether old-i.md was marked superseded. */
function stateOf(notes: string, i: number): { note?: string; superseded: boolean } {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name)));
  };
  walk(notes);
  const note = files.find((f) => readFileSync(f, 'utf8').includes(`title: Decision ${i} use a queue`));
  const old = readFileSync(join(notes, `old-${i}.md`), 'utf8');
  return { note, superseded: /status: superseded/.test(old) && /superseded_by:/.test(old) };
}

test('cancelled flush_session calls over stdio: each leaves the vault unchanged or holding the whole note; the server keeps answering', { timeout: 300_000 }, async (t) => {
  ensureBuilt();
  const repo: TempRepo = makeRepo({ '.k0maru/wiki/adr-001.md': ADR });
  const notes = join(repo.root, '.k0maru', 'wiki');
  const delays = [0, 0, 1, 2, 4, 8, 16, 32, 64, 128];
  delays.forEach((_, i) => writeFileSync(join(notes, `old-${i}.md`), `---\ntitle: Old ${i}\nstatus: accepted\n---\n# Old ${i}\n\nWe poll.\n`));
  const s = connect(repo.root);
  const ended: string[] = [];
  try {
    await s.client.connect(s.transport);
    await healthy(s.client);
    for (const [i, ms] of delays.entries()) {
      ended.push(await cancelled(s.client, 'flush_session', { title: `Decision ${i} use a queue`, content: 'Polling lost events; a queue keeps them.', category: 'decision', supersedes: `old-${i}` }, ms));
      await healthy(s.client);
    }
    // A flush that is not cancelled still works.
    const ok = await s.client.callTool({ name: 'flush_session', arguments: { title: 'After the cancellations', content: 'Still fine.' } });
    assert.ok(!ok.isError, textOf(ok));
  } finally {
    await s.client.close(); // the server finishes the calls it had started, then exits
  }
  await until('the server exited', () => s.transport.pid === null || !alive(s.transport.pid));
  const outcome = delays.map((_, i) => stateOf(notes, i));
  for (const [i, o] of outcome.entries()) {
    assert.ok((o.note !== undefined) === o.superseded, `attempt ${i} is torn: note ${o.note ?? 'absent'}, old-${i} superseded ${o.superseded}`);
  }
  const k0 = readdirSync(join(repo.root, '.k0maru'));
  assert.ok(!k0.some((n) => n.startsWith(JOURNAL_FILE) || n.startsWith(LOCK_DIR)), `a flush left its journal or lock: ${k0.join(', ')}`);
  const temps: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk(join(d, e.name)) : /\.tmp$/.test(e.name) && temps.push(e.name));
  };
  walk(notes);
  assert.deepEqual(temps, [], 'no temp file beside the notes');
  t.diagnostic(`calls: ${ended.join(', ')}; notes written: ${outcome.filter((o) => o.note).length} of ${delays.length}`);
  repo.dispose();
});

function alive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a guard_check cancelled while its git diff runs stops; other calls are answered meanwhile and after', { timeout: 180_000 }, async () => {
  ensureBuilt();
  const repo = makeRepo({ '.k0maru/wiki/adr-001.md': ADR, 'src/a.ts': 'export const a = 1;\n' });
  repo.write('.gitignore', '.k0maru/index.db*\n');
  repo.commit('base');
  repo.write('src/a.ts', 'export const a = eval("1");\n');
  const git = holdingGit();
  const s = connect(repo.root, { PATH: `${git.bin}:${ENV.PATH}` });
  try {
    await s.client.connect(s.transport);
    const ctl = new AbortController();
    const call = s.client.callTool({ name: 'guard_check', arguments: {} }, undefined, { signal: ctl.signal, timeout: 120_000 });
    await until('the guard started git diff', () => existsSync(git.log) && / diff .* --src-prefix=a\/ /.test(` ${readFileSync(git.log, 'utf8')} `));
    ctl.abort('the user pressed stop');
    await assert.rejects(call, /the user pressed stop/);
    // The server killed the withdrawn call's git (nobody released it); it answers other calls, a guard on a given diff included.
    await until('the cancelled call\'s git diff was killed', () => heldGits(git).length === 0);
    await healthy(s.client);
    const diff = 'diff --git a/b.ts b/b.ts\n--- a/b.ts\n+++ b/b.ts\n@@ -0,0 +1 @@\n+eval(x)\n';
    const other = await s.client.callTool({ name: 'guard_check', arguments: { diff } });
    assert.match(textOf(other), /NO-EVAL|eval\(/);
    writeFileSync(git.release, '');
    const again = await s.client.callTool({ name: 'guard_check', arguments: {} }, undefined, { timeout: 120_000 });
    assert.match(textOf(again), /src\/a\.ts:1/, 'a later check of the working tree runs to its end');
  } finally {
    writeFileSync(git.release, '');
    await s.client.close();
    // The release file is the held git's only way out: it stays until every held git has seen it.
    await until('every held git ended', () => heldGits(git).length === 0);
    repo.dispose();
    rmSync(git.dir, { recursive: true, force: true });
  }
});

test('cancelled economy calls (offload, inspect with grep, GC, distill) leave the server answering and no temp files', { timeout: 300_000 }, async () => {
  ensureBuilt();
  const repo = makeRepo({ '.k0maru/wiki/adr-001.md': ADR });
  const log = Array.from({ length: 40_000 }, (_, i) => `   Compiling crate-${i} v0.${i}.0 (/src/crate-${i})`).join('\n') + '\nerror[E0382]: borrow of moved value: `x`\n  --> src/main.rs:3:5\n';
  const s = connect(repo.root);
  try {
    await s.client.connect(s.transport);
    const off = await s.client.callTool({ name: 'offload_context', arguments: { raw_text: log, task_name: 'build' } }, undefined, { timeout: 120_000 });
    const nodeId = (off.structuredContent as { node_id: string }).node_id;
    assert.match(nodeId, /^node_[0-9a-f]{8}$/);
    const trajectory = JSON.stringify({ session_id: 's1', turns: [{ role: 'user', content: 'build' }, { role: 'tool', tool_name: 'bash', content: log.replace(/crate-/g, 'pkg-') }, ...Array.from({ length: 8 }, (_, i) => ({ role: 'assistant', content: `step ${i}` }))] });
    const calls: [string, Record<string, unknown>][] = [
      ['offload_context', { raw_text: log.replace(/crate-/g, 'lib-'), task_name: 'cancelled' }],
      ['inspect_log_node', { node_id: nodeId, grep: 'E0382|moved value' }],
      ['gc_session_context', { trajectory_json: trajectory, hot_window: 2 }],
      ['distill_session_skill', { node_id: nodeId }],
    ];
    for (const [name, args] of calls) {
      for (const ms of [0, 5, 50]) {
        await cancelled(s.client, name, args, ms);
        await healthy(s.client);
      }
    }
    const inspect = await s.client.callTool({ name: 'inspect_log_node', arguments: { node_id: nodeId, grep: 'E0382' } });
    assert.match(textOf(inspect), /E0382/);
  } finally {
    await s.client.close();
  }
  await until('the server exited', () => !alive(s.transport.pid ?? null));
  const refs = join(repo.root, '.k0maru', 'refs');
  const left = existsSync(refs) ? readdirSync(refs).filter((n) => n.endsWith('.tmp')) : [];
  assert.deepEqual(left, [], 'no offload temp file survives a cancellation');
  repo.dispose();
});

test('in process: the server is idle as soon as a guard_check waiting for git is cancelled (the handler stopped, git still held)', { timeout: 120_000 }, async () => {
  const repo = makeRepo({ '.k0maru/wiki/adr-001.md': ADR, 'src/a.ts': 'export const a = 1;\n' });
  repo.write('.gitignore', '.k0maru/index.db*\n');
  repo.commit('base');
  repo.write('src/a.ts', 'export const a = eval("1");\n');
  const git = holdingGit();
  const path = process.env.PATH;
  process.env.PATH = `${git.bin}:${path}`; // the product runs `git` from PATH
  const k0 = createMcpServer({ vault: repo.root, cwd: repo.root, env: { ...process.env }, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'k0maru-cancel-inproc', version: '1.0.0' });
  try {
    await k0.server.connect(serverSide);
    await client.connect(clientSide);
    const ctl = new AbortController();
    const call = client.callTool({ name: 'guard_check', arguments: {} }, undefined, { signal: ctl.signal, timeout: 60_000 });
    await until('the guard started git diff', () => existsSync(git.log) && / diff .* --src-prefix=a\/ /.test(` ${readFileSync(git.log, 'utf8')} `));
    ctl.abort('stop');
    await assert.rejects(call, /stop/);
    // Without the signal reaching guardCheck this waits for git, which nobody releases: the test would time out.
    await k0.idle();
    assert.ok(!existsSync(git.release), 'git is still held: the handler ended without it');
    // The cancel killed the git it had started: nothing of the withdrawn call keeps running.
    await until('the cancelled call\'s git diff was killed', () => heldGits(git).length === 0);
  } finally {
    writeFileSync(git.release, '');
    await until('every held git ended', () => heldGits(git).length === 0);
    process.env.PATH = path;
    await client.close();
    await k0.close();
    repo.dispose();
    rmSync(git.dir, { recursive: true, force: true });
  }
});
