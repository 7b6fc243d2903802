// A writer SIGKILLed in the middle of a transaction that had already spilled pages into the database file leaves a
// hot rollback journal (and, on node-sqlite3-wasm, its `<db>.lock` directory) behind. The next process to open the
// index must roll that journal back — see exactly the pre-transaction rows, integrity_check ok — whichever engine
// it runs on. The killed writer is a real child (Node 20 on node-sqlite3-wasm; also Node 22 on node:sqlite); it
// signals by a file from inside the transaction once the spill is on disk, and only then is it killed (no timing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { IndexDb } from '../../../src/core/index/db';
import { wasmRollsBackHotJournals } from '../../../src/core/index/engineWasm';
import { findNode22 } from '../../../bench/lib/runtimes';

const REPO = join(__dirname, '..', '..', '..');
const NODE22 = findNode22();
const skipNo22 = NODE22 ? false : "no Node 22 binary (set K0MARU_NODE22 or run .ci/run's install step)";
const DB = join(REPO, 'src/core/index/db');

const ROWS = 200;
const OLD = 'a'.repeat(400);
const NEW = 'b'.repeat(400);
const ADDED = 3000;

interface Fixture {
  dir: string;
  path: string;
  cleanup(): void;
}

function fixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'k0hotjournal-'));
  return { dir, path: join(dir, '.k0maru', 'index.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The committed state every later opener must see: ROWS rows holding OLD. */
function seed(path: string): void {
  const idx = IndexDb.open(path);
  try {
    idx.write(() => {
      idx.exec('CREATE TABLE probe(id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      const ins = idx.prepare('INSERT INTO probe(id, v) VALUES (?, ?)');
      for (let i = 1; i <= ROWS; i++) ins.run([i, OLD]);
      ins.finalize();
    });
  } finally {
    idx.close();
  }
}

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

/** Polls for a condition the child brings about (a file it writes), failing after `ms` or when the child exits. */
async function until(what: string, ok: () => boolean, child: ChildProcess, err: () => string, ms = 60_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (child.exitCode !== null || child.signalCode !== null) assert.fail(`child exited (${child.exitCode ?? child.signalCode}) before ${what}: ${err()}`);
    if (Date.now() - start > ms) assert.fail(`no ${what} within ${ms} ms: ${err()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs a Node 20 child on node-sqlite3-wasm that, inside one write transaction with an 8-page cache, rewrites every
 * row and adds ADDED more (far beyond the cache, so SQLite spills dirty pages into the database file), then writes
 * `<dir>/in-transaction` and blocks. Killed there with SIGKILL; resolves once it is gone.
 */
async function killMidTransaction(f: Fixture, writer: 'wasm' | 'native' = 'wasm'): Promise<{ spilled: boolean; journalBytes: number; lockLeft: boolean }> {
  const marker = join(f.dir, 'in-transaction');
  const script = join(f.dir, 'writer.ts');
  writeFileSync(
    script,
    `import { writeFileSync } from 'node:fs';
import { IndexDb } from ${JSON.stringify(DB)};
const idx = IndexDb.open(${JSON.stringify(f.path)});
idx.exec('PRAGMA cache_size=8');
idx.write(() => {
  idx.run('UPDATE probe SET v = ?', [${JSON.stringify(NEW)}]);
  const ins = idx.prepare('INSERT INTO probe(id, v) VALUES (?, ?)');
  for (let i = 1; i <= ${ADDED}; i++) ins.run([${ROWS} + i, ${JSON.stringify(NEW)}]);
  writeFileSync(${JSON.stringify(marker)}, 'x');
  const block = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(block, 0, 0, 60_000);
});
`,
  );
  const before = sha(f.path);
  const child = spawn(writer === 'native' ? NODE22! : process.execPath, ['--import', 'tsx', script], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', K0MARU_SQLITE: writer === 'native' ? 'native' : 'wasm' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await until('in-transaction marker', () => existsSync(marker), child, () => err);
    const journal = `${f.path}-journal`;
    const journalBytes = existsSync(journal) ? statSync(journal).size : 0;
    const spilled = sha(f.path) !== before;
    return { spilled, journalBytes, lockLeft: existsSync(`${f.path}.lock`) };
  } finally {
    child.kill('SIGKILL');
    await gone;
  }
}

interface Seen {
  count: number;
  old: number;
  integrity: string;
  engine: string;
}

/** What an opener reading through IndexDb sees (the stale lock is recovered by IndexDb as any process does). */
function look(path: string, warnings: string[] = []): Seen {
  const idx = IndexDb.open(path, (level, message) => level === 'warn' && warnings.push(message));
  try {
    const count = Number(idx.get('SELECT count(*) AS n FROM probe')?.n);
    const old = Number(idx.get('SELECT count(*) AS n FROM probe WHERE v = ?', [OLD])?.n);
    const integrity = idx.all('PRAGMA integrity_check').map((r) => String(Object.values(r)[0])).join('; ');
    return { count, old, integrity, engine: idx.engineName };
  } finally {
    idx.close();
  }
}

/** The same look from a child: a Node 22 (node:sqlite) running the source, or this Node 20 running a minified bundle. */
function lookInChild(f: Fixture, how: 'node22' | 'minified bundle'): Promise<Seen> {
  const script = join(f.dir, 'reader.ts');
  writeFileSync(
    script,
    `import { IndexDb } from ${JSON.stringify(DB)};
const idx = IndexDb.open(${JSON.stringify(f.path)});
const count = Number(idx.get('SELECT count(*) AS n FROM probe')?.n);
const old = Number(idx.get('SELECT count(*) AS n FROM probe WHERE v = ?', [${JSON.stringify(OLD)}])?.n);
const integrity = idx.all('PRAGMA integrity_check').map((r) => String(Object.values(r)[0])).join('; ');
process.stdout.write(JSON.stringify({ count, old, integrity, engine: idx.engineName }));
idx.close();
`,
  );
  let argv = [NODE22!, '--import', 'tsx', script];
  if (how === 'minified bundle') {
    // As the shipped extension and CLI are built (esbuild.mjs --production): function names minified, the WASM
    // next to the bundle. The import that answers xCheckReservedLock must still be found.
    const out = join(f.dir, 'bundle', 'reader.js');
    buildSync({ entryPoints: [script], outfile: out, bundle: true, platform: 'node', target: 'node20', format: 'cjs', minify: true, logLevel: 'error' });
    copyFileSync(join(REPO, 'node_modules', 'node-sqlite3-wasm', 'dist', 'node-sqlite3-wasm.wasm'), join(f.dir, 'bundle', 'node-sqlite3-wasm.wasm'));
    argv = [process.execPath, out];
  }
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: REPO, env: { PATH: process.env.PATH ?? '', K0MARU_SQLITE: how === 'node22' ? '' : 'wasm' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${how} reader exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as Seen);
    });
  });
}

function assertRolledBack(seen: Seen, engine: string): void {
  assert.equal(seen.engine, engine);
  assert.equal(seen.integrity, 'ok');
  assert.equal(seen.count, ROWS, 'the killed transaction added no row');
  assert.equal(seen.old, ROWS, 'every row holds its pre-transaction value');
}

async function killedWriterLeftHotJournal(f: Fixture, writer: 'wasm' | 'native' = 'wasm'): Promise<void> {
  seed(f.path);
  const k = await killMidTransaction(f, writer);
  assert.ok(k.spilled, 'the uncommitted transaction wrote pages into the database file before it was killed');
  assert.ok(k.journalBytes > 0, 'a non-empty rollback journal was there at the kill');
  assert.ok(k.lockLeft, 'the `.lock` directory was held at the kill');
  assert.ok(existsSync(`${f.path}.lock`), 'the killed writer left its lock behind');
}

test('a WASM writer killed after spilling part of its transaction: the next WASM opener rolls the hot journal back', async () => {
  const f = fixture();
  try {
    await killedWriterLeftHotJournal(f);
    const warnings: string[] = [];
    assertRolledBack(look(f.path, warnings), 'wasm');
    // The killed writer's lock went the way it always does (lockHolders.ts: nobody holds the file, so no 15 s wait).
    assert.deepEqual(warnings, ['removed a stale index lock left by a killed process (no live process has the index open)']);
    assert.ok(!existsSync(`${f.path}.lock`), 'no lock left behind by the opener');
    // Rolled back for good, not merely hidden from one reader: the journal is gone and a second opener agrees.
    assert.ok(!existsSync(`${f.path}-journal`) || statSync(`${f.path}-journal`).size === 0, 'the hot journal was consumed');
    assertRolledBack(look(f.path), 'wasm');
  } finally {
    f.cleanup();
  }
});

test('a WASM writer killed after spilling part of its transaction: the next native (Node 22) opener rolls it back', { skip: skipNo22 }, async () => {
  const f = fixture();
  try {
    await killedWriterLeftHotJournal(f);
    assertRolledBack(await lookInChild(f, 'node22'), 'native');
    assertRolledBack(look(f.path), 'wasm');
  } finally {
    f.cleanup();
  }
});

test('a native (Node 22) writer killed after spilling part of its transaction: the next WASM opener rolls it back', { skip: skipNo22 }, async () => {
  const f = fixture();
  try {
    await killedWriterLeftHotJournal(f, 'native');
    assertRolledBack(look(f.path), 'wasm');
    assertRolledBack(await lookInChild(f, 'node22'), 'native');
  } finally {
    f.cleanup();
  }
});

test('the same from a minified bundle (as shipped): the next WASM opener rolls the hot journal back', async () => {
  const f = fixture();
  try {
    await killedWriterLeftHotJournal(f);
    assertRolledBack(await lookInChild(f, 'minified bundle'), 'wasm');
  } finally {
    f.cleanup();
  }
});

test('a process that loaded node-sqlite3-wasm itself first (as some tests do) still gets the engine its own hooked copy', async () => {
  const f = fixture();
  try {
    const script = join(f.dir, 'preloaded.ts');
    writeFileSync(
      script,
      `import { Database } from ${JSON.stringify(join(REPO, 'node_modules', 'node-sqlite3-wasm'))};
import { wasmEngine, wasmRollsBackHotJournals } from ${JSON.stringify(join(REPO, 'src/core/index/engineWasm'))};
new Database(${JSON.stringify(join(f.dir, 'other.db'))}).close();
const before = wasmRollsBackHotJournals();
wasmEngine.open(${JSON.stringify(join(f.dir, 'index.db'))}).close();
process.stdout.write(JSON.stringify({ before, after: wasmRollsBackHotJournals() }));
`,
    );
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let o = '';
      let e = '';
      child.stdout.on('data', (d) => (o += d));
      child.stderr.on('data', (d) => (e += d));
      child.on('close', (code) => (code === 0 ? resolve(o) : reject(new Error(`exited ${code}: ${e}`))));
    });
    assert.deepEqual(JSON.parse(out), { before: false, after: true });
  } finally {
    f.cleanup();
  }
});
