import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST_MCP, ensureBuilt } from '../../helpers/build';
import { textOf } from '../../helpers/mcpClient';

/**
 * Issue 13 defect 4 through the shipped server: a vault with a symlink to a FIFO used to hang the first tool call
 * (every call scans first) and, the event loop blocked, the server then ignored SIGTERM.
 */

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, deadlineMs: number, what: string): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`${what} (waited ${deadlineMs} ms)`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('the built MCP server answers with a FIFO symlink in the vault, and SIGTERM ends it', async () => {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), 'k0-fifo-mcp-'));
  const notes = join(root, '.k0maru', 'wiki');
  mkdirSync(notes, { recursive: true });
  writeFileSync(join(notes, 'redis.md'), '---\ntitle: Redis mutex\n---\n# Redis mutex\nAcquire a zeppelin lock before charging.\n');
  assert.equal(spawnSync('mkfifo', [join(root, 'pipe')]).status, 0, 'mkfifo');
  symlinkSync(join(root, 'pipe'), join(notes, 'hang.md'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [DIST_MCP, '--vault', root],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'k0maru-fifo-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    const pid = transport.pid!;
    assert.ok(pid > 0);
    const res = await client.callTool({ name: 'recall_memory', arguments: { query: 'zeppelin lock', mode: 'bm25' } }, undefined, { timeout: 60_000 });
    assert.ok(!res.isError, textOf(res));
    assert.match(textOf(res), /redis\.md/);
    process.kill(pid, 'SIGTERM');
    await until(() => !alive(pid), 20_000, `the server ignored SIGTERM; stderr: ${stderr}`);
  } finally {
    await client.close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
});
