import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cli, crashProject, DECIDED, expectedRules, FLUSH_POINTS, guardRuleIds, leftovers, pairState, privateCli, supersedingFlush, type CrashProject } from './crashKit';

// The next process to open the vault recovers, whichever it is: a flush, a scan, the guard, an MCP server.
type Next = 'scan' | 'guard' | 'flush' | 'mcp';
const NEXTS: Next[] = ['scan', 'guard', 'flush', 'mcp'];

async function nextRun(p: CrashProject, kind: Next): Promise<void> {
  if (kind === 'scan') assert.equal(cli(p, ['scan']).status, 0);
  else if (kind === 'guard') guardRuleIds(p);
  else if (kind === 'flush') assert.equal(cli(p, ['flush', '--title', 'Unrelated log', '--content-file', 'log.md']).status, 0);
  else {
    const transport = new StdioClientTransport({ command: process.execPath, args: [privateCli(), 'mcp', '--vault', p.root], cwd: p.root, env: { PATH: process.env.PATH ?? '', HOME: p.root }, stderr: 'ignore' });
    const client = new Client({ name: 'crash-test', version: '1' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: 'guard_check', arguments: { files: ['code.ts'], repo_path: p.root } })) as { isError?: boolean };
      assert.notEqual(r.isError, true, JSON.stringify(r));
    } finally {
      await client.close();
    }
  }
}

test('SIGKILL at every named point of a superseding flush (built CLI): the next scan / guard / flush / MCP server leaves the pair whole or absent, no temp file, and the guard applies only the rules in force', async () => {
  for (const [i, point] of FLUSH_POINTS.entries()) {
    const p = crashProject();
    const r = cli(p, supersedingFlush, { K0MARU_FAULT: `flush:${point}` });
    assert.equal(r.signal, 'SIGKILL', `the flush reached ${point} and was killed there (status ${r.status}, ${r.stderr})`);
    const kind = NEXTS[i % NEXTS.length];
    await nextRun(p, kind);
    const state = pairState(p);
    assert.equal(state, DECIDED.has(point) ? 'whole' : 'absent', `killed at ${point}, recovered by ${kind}`);
    assert.deepEqual(leftovers(p.root), [], `killed at ${point}, recovered by ${kind}: nothing left behind`);
    assert.deepEqual(guardRuleIds(p), expectedRules(state), `killed at ${point}: guard rules`);
  }
});

test('a recovery killed at each of its own points is finished by the run after it', async () => {
  for (const point of ['recover:start', 'recover:op-0', 'recover:op-1', 'recover:op-2', 'recover:done']) {
    const p = crashProject();
    assert.equal(cli(p, supersedingFlush, { K0MARU_FAULT: 'flush:rename-0' }).signal, 'SIGKILL');
    // The second run dies while recovering (its own flush never starts), the third one finishes the job.
    const second = cli(p, ['scan'], { K0MARU_FAULT: point });
    assert.equal(second.signal, 'SIGKILL', `recovery reached ${point}`);
    assert.equal(cli(p, ['scan']).status, 0);
    assert.equal(pairState(p), 'whole', point);
    assert.deepEqual(leftovers(p.root), [], point);
  }
});

test('a flush killed while undoing a failed commit is undone by the next run', async () => {
  const p = crashProject();
  // A worker whose commit fails at rename-1 (a throwing test hook) and that is killed inside its rollback.
  const worker = join(__dirname, 'crashWorker.ts');
  const code = await new Promise<string | null>((resolve) => {
    const c = spawn(process.execPath, ['--import', 'tsx', worker, p.root, 'rename', '1'], { stdio: 'ignore', env: { ...process.env, K0MARU_FAULT: 'flush:rollback' } });
    c.on('close', (_code, signal) => resolve(signal));
  });
  assert.equal(code, 'SIGKILL');
  assert.equal(cli(p, ['scan']).status, 0);
  assert.equal(pairState(p), 'absent');
  assert.deepEqual(leftovers(p.root), []);
  assert.deepEqual(guardRuleIds(p), expectedRules('absent'));
});

test('the same crash without the journal protocol would be visible: the kill really lands between the two writes', () => {
  // Guards the test itself: at rename-0 the new note is already linked and the old ones untouched on disk.
  const p = crashProject();
  assert.equal(cli(p, supersedingFlush, { K0MARU_FAULT: 'flush:rename-0' }).signal, 'SIGKILL');
  assert.throws(() => pairState(p), /not superseded/);
});
