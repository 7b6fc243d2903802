import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { connectStdio, textOf } from '../../helpers/mcpClient';
import { LOG_DIR } from './fixtures';

/**
 * Issue 16 item 7: an offload summary tells its reader how to see the raw log in the reader's own terms —
 * a person at the CLI (or in the editor) gets the `k0maru inspect node_…` command, an agent over MCP the tool name.
 */
const LOG = join(LOG_DIR, 'long-c-build-buried-error.log');

function project(): { root: string; cli(args: string[]): { code: number; out: string; err: string }; done(): void } {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), 'k0-hint-'));
  execFileSync('git', ['init', '-q'], { cwd: root });
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [DIST_CLI, ...args], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root }, encoding: 'utf8' });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
  };
  assert.equal(cli(['init']).code, 0);
  return { root, cli, done: () => rmSync(root, { recursive: true, force: true }) };
}

test('issue16-item7: the built CLI names `k0maru inspect node_…` (a command that works), never the MCP tool', () => {
  const p = project();
  try {
    const r = p.cli(['offload', LOG]);
    assert.equal(r.code, 0, r.err);
    const node = r.out.match(/Reference ID: (node_[0-9a-f]{8})/)?.[1];
    assert.ok(node, r.out);
    assert.ok(r.out.includes(`k0maru inspect ${node}`), r.out);
    assert.doesNotMatch(r.out, /inspect_log_node/);
    // The command the summary gives a person runs as written.
    const cmd = r.out.match(/`k0maru (inspect node_[0-9a-f]{8})`/)![1].split(' ');
    const shown = p.cli([...cmd, '--lines', '1:3']);
    assert.equal(shown.code, 0, shown.err);
    assert.equal(shown.out.trim().split('\n').length >= 3, true, shown.out);
  } finally {
    p.done();
  }
});

test('issue16-item7: the MCP offload_context text keeps the tool name for the agent', async () => {
  const p = project();
  const c = await connectStdio(['--vault', p.root]);
  try {
    const off = await c.client.callTool({ name: 'offload_context', arguments: { raw_text: readFileSync(LOG, 'utf8'), task_name: 'build' } });
    assert.equal(off.isError, undefined, textOf(off));
    assert.match(textOf(off), /Use 'inspect_log_node' to view raw stack frames/);
    assert.doesNotMatch(textOf(off), /k0maru inspect/);
  } finally {
    await c.close();
    p.done();
  }
});
