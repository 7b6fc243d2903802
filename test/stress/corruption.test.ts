// Index corruption of every kind in the attack report: garbage pages in the middle of index.db, index.db a
// directory, truncated to zero, a symlink to another application's SQLite file. The next command heals (moves
// aside, rebuilds, warns) and answers; a symlink target is never written through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from 'node-sqlite3-wasm';
import { connectMcp, integrityCheck, record, round, runCli } from './lib';
import { textOf } from '../helpers/mcpClient';

const figures: Record<string, unknown> = {};
test.after(() => record('corruption', figures));

async function indexedProject(): Promise<{ root: string; index: string }> {
  const root = mkdtempSync(join(tmpdir(), 'k0stress-corrupt-'));
  spawnSync('git', ['init', '-q'], { cwd: root });
  const notes = join(root, '.k0maru', 'wiki');
  mkdirSync(notes, { recursive: true });
  for (let i = 0; i < 150; i++) writeFileSync(join(notes, `note-${i}.md`), `# Note ${i}\n\nThe cache eviction policy number ${i}.\n\n${'filler words for pages '.repeat(60)}\n`);
  const first = await runCli(root, ['scan']);
  assert.equal(first.code, 0, first.err);
  return { root, index: join(root, '.k0maru', 'index.db') };
}

/** The command after the damage must answer (exit 0, hits found), and the one after it too: healed, not stuck. */
async function assertHeals(root: string, name: string): Promise<void> {
  const t0 = performance.now();
  const scan = await runCli(root, ['scan', '--json'], { timeoutMs: 120_000 });
  const recall = await runCli(root, ['recall', 'cache eviction policy', '--mode', 'bm25', '--json'], { timeoutMs: 60_000 });
  figures[name] = { healMs: round(performance.now() - t0), scanExit: scan.code, recallExit: recall.code, warned: /corrupt|rebuil|moved aside|index/i.test(scan.err + scan.out) };
  assert.equal(scan.code, 0, `${name}: scan: ${scan.err}`);
  assert.equal(recall.code, 0, `${name}: recall: ${recall.err}`);
  assert.match(recall.out, /note-\d+\.md/, `${name}: recall finds notes after the rebuild`);
  const again = await runCli(root, ['recall', 'cache eviction policy', '--mode', 'bm25', '--json'], { timeoutMs: 60_000 });
  assert.equal(again.code, 0, `${name}: second recall: ${again.err}`);
  assert.equal(integrityCheck(join(root, '.k0maru', 'index.db')), 'ok', `${name}: integrity after healing`);
}

test('20 garbage pages in the middle of index.db: detected, moved aside, rebuilt (CLI and MCP)', async () => {
  const p = await indexedProject();
  const size = statSync(p.index).size;
  const page = 4096;
  const pages = Math.floor(size / page);
  assert.ok(pages > 40, `index has ${pages} pages`);
  const fd = openSync(p.index, 'r+');
  const junk = Buffer.alloc(page);
  for (let i = 0; i < 20; i++) {
    for (let b = 0; b < page; b++) junk[b] = (b * 131 + i * 17 + 7) & 0xff;
    writeSync(fd, junk, 0, page, (Math.floor(pages / 2) - 10 + i) * page);
  }
  closeSync(fd);
  const s = await connectMcp(p.root);
  try {
    const r = (await s.client.callTool({ name: 'recall_memory', arguments: { query: 'cache eviction policy', mode: 'bm25' } })) as { isError?: boolean };
    figures.garbagePagesMcpError = r.isError ? JSON.stringify(r).slice(0, 300) : null;
    assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 500));
  } finally {
    await s.close();
  }
  await assertHeals(p.root, 'garbagePages');
});

test('index.db is a directory: moved aside and rebuilt', async () => {
  const p = await indexedProject();
  rmSync(p.index);
  mkdirSync(p.index);
  writeFileSync(join(p.index, 'something'), 'x');
  await assertHeals(p.root, 'indexIsDirectory');
  assert.ok(statSync(p.index).isFile());
});

test('index.db truncated to zero bytes: rebuilt', async () => {
  const p = await indexedProject();
  truncateSync(p.index, 0);
  await assertHeals(p.root, 'truncatedToZero');
});

test("index.db a symlink to another application's SQLite file: never written through", async () => {
  const p = await indexedProject();
  const other = join(mkdtempSync(join(tmpdir(), 'k0stress-otherapp-')), 'app.db');
  const db = new Database(other);
  db.exec('CREATE TABLE precious (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO precious (v) VALUES (\'keep me\'), (\'and me\');');
  db.close();
  const before = readFileSync(other);
  rmSync(p.index);
  symlinkSync(other, p.index);
  await assertHeals(p.root, 'indexIsSymlink');
  assert.ok(readFileSync(other).equals(before), "the other application's database was modified");
  assert.ok(!lstatSync(p.index).isSymbolicLink(), 'index.db is a regular file again');
});

test('garbage over the index under a live MCP server: the next call heals within itself and answers, with a warning', async () => {
  const p = await indexedProject();
  const s = await connectMcp(p.root);
  try {
    const first = (await s.client.callTool({ name: 'recall_memory', arguments: { query: 'cache eviction policy', mode: 'bm25' } })) as { isError?: boolean };
    assert.notEqual(first.isError, true);
    // Every page but the header, and a new change counter (as any writer leaves): the server's cache is stale now.
    const pages = statSync(p.index).size / 4096;
    const fd = openSync(p.index, 'r+');
    const junk = Buffer.alloc(4096);
    for (let i = 1; i < pages; i++) {
      for (let b = 0; b < 4096; b++) junk[b] = (b * 131 + i * 17 + 7) & 0xff;
      writeSync(fd, junk, 0, 4096, i * 4096);
    }
    writeSync(fd, Buffer.from([0x7f, 0x01, 0x02, 0x03]), 0, 4, 24);
    closeSync(fd);
    const t0 = performance.now();
    const r = (await s.client.callTool({ name: 'recall_memory', arguments: { query: 'cache eviction policy', mode: 'bm25' } })) as { isError?: boolean };
    const text = textOf(r);
    const loadout = (await s.client.callTool({ name: 'get_project_loadout', arguments: {} })) as { isError?: boolean };
    figures.underLiveServer = { healMs: round(performance.now() - t0), recallError: r.isError ? text.slice(0, 300) : null, loadoutError: loadout.isError ? textOf(loadout).slice(0, 300) : null, warned: /warning: .*corrupt/.test(text) };
    assert.notEqual(r.isError, true, text.slice(0, 500));
    assert.match(text, /note-\d+\.md/, 'answered from the rebuilt index');
    assert.match(text, /warning: .*corrupt/, 'the heal is reported in the answer');
    assert.notEqual(loadout.isError, true, textOf(loadout).slice(0, 500));
  } finally {
    await s.close();
  }
  assert.equal(integrityCheck(p.index), 'ok');
});
