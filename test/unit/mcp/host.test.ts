import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../../src/mcp/server';
import { textOf } from '../../helpers/mcpClient';
import { tempVault } from '../../helpers/tempVault';

async function connect(root: string, env: NodeJS.ProcessEnv = {}) {
  const logs: string[] = [];
  const k0 = createMcpServer({ vault: root, cwd: root, env, log: (level, m) => logs.push(`${level}: ${m}`) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await k0.server.connect(serverSide);
  const client = new Client({ name: 'k0maru-host-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { k0, client, logs, close: async () => (await client.close(), await k0.close()) };
}

type RecallOut = { mode: string; effective_mode: string; warnings: string[]; hits: { path: string }[] };

test('MCP on the host: concurrent calls all answer from one index, and a note written just before a call is in its answer', async () => {
  const v = tempVault({ 'a.md': '# Alpha\n\nthe alpha decision about caching\n' });
  const c = await connect(v.root);
  try {
    const calls = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0
        ? c.client.callTool({ name: 'get_project_loadout', arguments: {} })
        : c.client.callTool({ name: 'recall_memory', arguments: { query: 'alpha caching', mode: 'bm25' } }),
    );
    const results = await Promise.all(calls);
    assert.ok(results.every((r) => !r.isError), results.map(textOf).join('\n---\n'));
    // Scan before answer: the write happens-before the call, so the call's scan started after it.
    v.write('b.md', '# Beta\n\nbeta mentions zeppelin maintenance\n');
    const r = await c.client.callTool({ name: 'recall_memory', arguments: { query: 'zeppelin', mode: 'bm25' } });
    assert.deepEqual((r.structuredContent as RecallOut).hits.map((h) => h.path), ['b.md']);
  } finally {
    await c.close();
    v.cleanup();
  }
});

test('MCP on the host: hybrid without a model answers from BM25, effective_mode bm25, one warning naming the reason', async () => {
  const v = tempVault({ 'a.md': '# Alpha\n\nthe alpha decision about caching\n' });
  const c = await connect(v.root, { K0MARU_MODEL: join(v.root, 'missing-model') });
  try {
    const r = await c.client.callTool({ name: 'recall_memory', arguments: { query: 'alpha caching' } });
    assert.ok(!r.isError, textOf(r));
    const out = r.structuredContent as RecallOut;
    assert.equal(out.mode, 'hybrid');
    assert.equal(out.effective_mode, 'bm25');
    assert.equal(out.warnings.length, 1, out.warnings.join(' | '));
    assert.match(out.warnings[0]!, /missing-model.*BM25 only/);
    assert.match(textOf(r), /BM25 only/);
  } finally {
    await c.close();
    v.cleanup();
  }
});

test('MCP on the host: a cancelled call (notifications/cancelled) leaves the server serving; close waits for calls', async () => {
  const v = tempVault(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\nbody ${i} about topic ${i % 7}\n`])));
  const c = await connect(v.root);
  try {
    const ac = new AbortController();
    const cancelledCall = c.client.callTool({ name: 'recall_memory', arguments: { query: 'topic', mode: 'bm25' } }, undefined, { signal: ac.signal });
    ac.abort();
    await assert.rejects(cancelledCall, (e: Error) => /abort/i.test(`${e.name} ${e.message}`));
    const r = await c.client.callTool({ name: 'recall_memory', arguments: { query: 'topic', mode: 'bm25', limit: 3 } });
    assert.ok(!r.isError, textOf(r));
    assert.equal((r.structuredContent as RecallOut).hits.length, 3);
    await c.k0.idle();
    assert.deepEqual(c.logs.filter((l) => l.startsWith('error')), []);
  } finally {
    await c.close();
    v.cleanup();
  }
});
