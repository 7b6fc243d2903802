import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCP_ENTRY, textOf } from '../../helpers/mcpClient';
import { tempVault } from '../../helpers/tempVault';
import { ensureBundledModel } from '../embed/helpers';

/**
 * Issue 14 item 1 through a real MCP SDK client over stdio (the server from source, as test/helpers/mcpClient.ts
 * runs it): after the first hybrid recall_memory the server embeds the rest of the vault between calls — no call
 * is made while it does, so no call's budget pays for it — and the next answer is plain `hybrid` over every
 * passage. Closing stdin in the middle of a fill ends the process by itself (the worker is a thread of it).
 * Conditions only: the server's own --debug lines and the child's exit, never a sleep.
 */

const TSX = pathToFileURL(join(__dirname, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const WORDS = 'cache queue broker replica shard lease token ledger invoice webhook cron backup restore schema migration'.split(' ');

function notes(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${i}.md`, `# Note ${i}: ${WORDS[i % WORDS.length]}\n\n${Array.from({ length: 110 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' ')}\n`]));
}

type Sc = { effective_mode: string; coverage?: { embedded: number; passages: number }; warnings: string[]; hits: { path: string }[] };

async function start(root: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX, MCP_ENTRY, '--vault', root, '--debug'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', K0MARU_MODEL: ensureBundledModel(), ...(process.env.K0MARU_EMBED_RUNTIME ? { K0MARU_EMBED_RUNTIME: process.env.K0MARU_EMBED_RUNTIME } : {}) },
    stderr: 'pipe',
  });
  let stderr = '';
  const watchers: { re: RegExp; resolve: () => void }[] = [];
  transport.stderr?.on('data', (d) => {
    stderr += d;
    for (const w of watchers.splice(0)) (w.re.test(stderr) ? w.resolve : () => watchers.push(w))();
  });
  const client = new Client({ name: 'k0maru-fill-test', version: '1.0.0' });
  await client.connect(transport);
  const child = (transport as unknown as { _process: ChildProcess })._process;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const logged = (re: RegExp) => (re.test(stderr) ? Promise.resolve() : new Promise<void>((resolve) => watchers.push({ re, resolve })));
  const recall = async (query: string) => {
    const r = await client.callTool({ name: 'recall_memory', arguments: { query, mode: 'hybrid', limit: 3 } }, undefined, { timeout: 120_000 });
    assert.ok(!r.isError, textOf(r));
    return { text: textOf(r), sc: r.structuredContent as Sc };
  };
  return { client, child, exited, logged, recall, stderr: () => stderr };
}

test('the MCP server fills the vectors between calls and then answers plain hybrid over every passage', { timeout: 300_000 }, async () => {
  const v = tempVault(notes(25));
  const s = await start(v.root);
  try {
    const first = await s.recall('shard replica lease');
    // The first call starts the model (and answers BM25 while it loads, or hybrid over what is there).
    assert.match(first.sc.effective_mode, /^(bm25|hybrid \(partial: \d+ % of passages\))$/, JSON.stringify(first.sc));
    if (first.sc.effective_mode !== 'bm25') assert.ok(first.text.includes(`answered as ${first.sc.effective_mode}`));
    await s.logged(/every passage has its vector/);
    const covered = await s.recall('shard replica lease');
    assert.equal(covered.sc.effective_mode, 'hybrid', JSON.stringify(covered.sc));
    assert.deepEqual(covered.sc.warnings, []);
    assert.ok(covered.sc.coverage!.passages >= 25 && covered.sc.coverage!.embedded === covered.sc.coverage!.passages);
    assert.doesNotMatch(covered.text, /answered as|partial/);
  } finally {
    await s.client.close();
    v.cleanup();
  }
});

test('closing stdin during a background fill ends the MCP server process by itself', { timeout: 300_000 }, async () => {
  const v = tempVault(notes(150));
  const s = await start(v.root);
  try {
    await s.recall('ledger invoice webhook');
    await s.logged(/embedding \d+ passage\(s\) in the background/);
    assert.doesNotMatch(s.stderr(), /every passage has its vector/, 'the fill must still be running for this test to mean anything');
    s.child.stdin!.end();
    const { code, signal } = await s.exited; // the SDK would SIGTERM after 2 s: we never call its close() first
    assert.equal(signal, null);
    assert.equal(code, 0, s.stderr());
  } finally {
    await s.client.close().catch(() => undefined);
    v.cleanup();
  }
});
