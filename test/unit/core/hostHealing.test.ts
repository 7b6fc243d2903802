// A long-lived ProjectHost whose index file is damaged under it heals within the call that meets the damage: the
// file is moved aside, the index is rebuilt from the Markdown, the call runs again and answers with a warning. The
// next call is clean. Real SQLite, real files, real scans.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ProjectHost } from '../../../src/core/host';
import { tempVault, type TempVault } from '../../helpers/tempVault';

const WORDS = 'cache webhook retry mutex redis postgres latency queue worker shard replica failover schema migration rollback deploy'.split(' ');

function vault(n = 200): TempVault {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const body = Array.from({ length: 120 }, (_, j) => WORDS[(i * 7 + j * 13) % WORDS.length]).join(' ');
    files[`n/note-${i}.md`] = `# Note ${i}\n\n${body} uniq${i}\n`;
  }
  return tempVault(files);
}

const indexOf = (v: TempVault) => join(v.root, '.k0maru', 'index.db');
const aside = (v: TempVault) => readdirSync(join(v.root, '.k0maru')).filter((f) => f.startsWith('index.db.corrupt-'));

/** Garbage over every page but the header, and a new change counter (as any other writer leaves one). */
function damage(path: string, fromPage = 1): void {
  const pages = statSync(path).size / 4096;
  const fd = openSync(path, 'r+');
  for (let i = fromPage; i < pages; i++) writeSync(fd, randomBytes(4096), 0, 4096, i * 4096);
  writeSync(fd, Buffer.from([0x7f, 0x01, 0x02, 0x03]), 0, 4, 24);
  closeSync(fd);
}

function host(v: TempVault, logs: string[]): ProjectHost {
  return new ProjectHost({ vault: v.root, cwd: v.root, env: {}, log: (level, m) => logs.push(`${level}: ${m}`) });
}

test('index corrupted under a live host: the next recall heals within the call and answers, with a warning', async () => {
  const v = vault();
  const logs: string[] = [];
  const h = host(v, logs);
  try {
    const before = await h.recall('uniq17', { mode: 'bm25' });
    assert.match(before.hits[0]!.path, /note-17\.md/);
    damage(indexOf(v));
    const r = await h.recall('uniq42', { mode: 'bm25' });
    assert.match(r.hits[0]?.path ?? '', /note-42\.md/, 'the healed call answers from the rebuilt index');
    assert.ok(r.warnings.some((w) => /index .*corrupt/i.test(w)), r.warnings.join('\n'));
    assert.equal(aside(v).length, 1, 'the damaged file was moved aside');
    assert.ok(logs.some((l) => /^warn: .*corrupt/.test(l)), logs.join('\n'));
    const next = await h.recall('uniq99', { mode: 'bm25' });
    assert.match(next.hits[0]!.path, /note-99\.md/);
    assert.ok(!next.warnings.some((w) => /corrupt/i.test(w)), 'the call after the heal is clean');
  } finally {
    await h.close();
    v.cleanup();
  }
});

test('index corrupted under a live host: damage met by the call’s own query (after its scan): use() reruns it on the rebuilt index and hands back the warning', async () => {
  const v = vault(120);
  const h = host(v, []);
  try {
    await h.fresh();
    let runs = 0;
    const { value, warning } = await h.use(async (p) => {
      // The damage lands after this call's scan, so the call's own query is the one that meets it.
      if (++runs === 1) damage(indexOf(v));
      return Number(p.index.get('SELECT COUNT(*) AS n FROM documents')!.n);
    });
    assert.equal(value, 120, 'answered from the rebuilt index');
    assert.equal(runs, 2, 'the call ran once on the damaged file and once on the rebuilt one');
    assert.match(warning ?? '', /corrupt/);
    const again = await h.use(async (p) => Number(p.index.get('SELECT COUNT(*) AS n FROM documents')!.n));
    assert.deepEqual(again, { value: 120 });
  } finally {
    await h.close();
    v.cleanup();
  }
});

test('an index that is not a database at all under a live host (header gone too): healed within the call', async () => {
  const v = vault(80);
  const h = host(v, []);
  try {
    await h.recall('uniq1', { mode: 'bm25' });
    damage(indexOf(v), 0);
    const r = await h.recall('uniq7', { mode: 'bm25' });
    assert.match(r.hits[0]?.path ?? '', /note-7\.md/);
    assert.ok(r.warnings.some((w) => /corrupt/i.test(w)), r.warnings.join('\n'));
  } finally {
    await h.close();
    v.cleanup();
  }
});

test('MCP server on a live host: the index corrupted under it, the next read-only tool calls answer with a warning', async () => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { createMcpServer } = await import('../../../src/mcp/server');
  const { textOf } = await import('../../helpers/mcpClient');
  const v = vault(150);
  const k0 = createMcpServer({ vault: v.root, cwd: v.root, env: {}, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await k0.server.connect(serverSide);
  const client = new Client({ name: 'k0maru-heal-test', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    assert.ok(!(await client.callTool({ name: 'recall_memory', arguments: { query: 'uniq3', mode: 'bm25' } })).isError);
    damage(indexOf(v));
    const r = await client.callTool({ name: 'recall_memory', arguments: { query: 'uniq42', mode: 'bm25' } });
    assert.ok(!r.isError, textOf(r));
    assert.match(textOf(r), /note-42\.md/);
    assert.match(textOf(r), /warning: .*corrupt/);
    damage(indexOf(v));
    const l = await client.callTool({ name: 'get_project_loadout', arguments: {} });
    assert.ok(!l.isError, textOf(l));
    assert.match(textOf(l), /warning: .*corrupt/);
    const clean = await client.callTool({ name: 'recall_memory', arguments: { query: 'uniq43', mode: 'bm25' } });
    assert.doesNotMatch(textOf(clean), /corrupt/);
  } finally {
    await client.close();
    await k0.close();
    v.cleanup();
  }
});
