import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';
import { findNode22 } from '../../../bench/lib/runtimes';
import { COMPILE_CACHE_DIR, useCompileCache } from '../../../src/cli/compileCache';

// Issue 17: the built CLI keeps V8's code cache for its own bundle in the package folder (src/cli/compileCache.ts)
// where the runtime has module.enableCompileCache (Node ≥ 22.1). These tests run a private copy of dist/ (so the
// cache they create, corrupt and race is theirs) on a real Node 22 and on this Node 20, and read Node's own
// NODE_DEBUG_NATIVE=COMPILE_CACHE log to see which entries were accepted.
const NODE22 = findNode22();
const skipNo22 = NODE22 ? false : "no Node 22 binary (set K0MARU_NODE22 or run .ci/run's install step)";

const notes = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`n/note-${i}.md`, `# Note ${i}\n\nAbout caching and retries ${i}.\n`]));

/** dist/'s CLI bundle and the SQLite WASM in a fresh folder: a package of our own for one test. */
function privatePackage(): { dir: string; cli: string; cache: string; cleanup(): void } {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'k0-startcache-'));
  const dist = join(DIST_CLI, '..');
  for (const f of readdirSync(dist)) if (f === 'cli.mjs' || /^lazy-.*\.mjs$/.test(f) || f === 'node-sqlite3-wasm.wasm') copyFileSync(join(dist, f), join(dir, f));
  return { dir, cli: join(dir, 'cli.mjs'), cache: join(dir, COMPILE_CACHE_DIR), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

interface Run {
  code: number | null;
  stdout: string;
  log: string;
}

function scanArgs(cli: string, vault: string): string[] {
  return [cli, 'recall', 'caching retries', '--mode', 'bm25', '--vault', vault];
}

/** One CLI run; stderr carries Node's compile-cache log. TMPDIR points at an empty folder that must stay empty. */
function run(node: string, args: string[], tmp: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { env: { PATH: process.env.PATH ?? '', HOME: tmp, TMPDIR: tmp, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let log = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (log += String(d)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, log }));
  });
}

const accepted = (log: string) => (log.match(/was accepted/g) ?? []).length;
const cacheFiles = (cache: string): string[] => (existsSync(cache) ? readdirSync(cache).flatMap((v) => readdirSync(join(cache, v)).map((f) => join(cache, v, f))) : []);

test('Node 22: the second run compiles from the cache in the package folder, with the same answer and nothing written elsewhere', { skip: skipNo22 }, async () => {
  const pkg = privatePackage();
  const v = tempVault(notes);
  const tmp = mkdtempSync(join(tmpdir(), 'k0-startcache-tmp-'));
  try {
    const first = await run(NODE22!, scanArgs(pkg.cli, v.root), tmp);
    assert.equal(first.code, 0, first.log.slice(-2000));
    assert.match(first.stdout, /note-\d+\.md/);
    assert.equal(accepted(first.log), 0, 'a fresh package has nothing cached');
    assert.ok(cacheFiles(pkg.cache).length > 3, 'the first run wrote the cache beside the bundle');
    const second = await run(NODE22!, scanArgs(pkg.cli, v.root), tmp);
    assert.equal(second.code, 0);
    assert.equal(second.stdout, first.stdout);
    assert.ok(accepted(second.log) > 3, `the second run used the cache:\n${second.log.slice(0, 1500)}`);
    assert.deepEqual(readdirSync(tmp), [], 'nothing in TMPDIR / HOME');
    assert.deepEqual(readdirSync(join(v.root, '.k0maru')).filter((f) => /cache/i.test(f)), [], 'nothing in the project');
  } finally {
    v.cleanup();
    pkg.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('Node 22: a corrupt or truncated cache entry is rejected and rewritten, never trusted', { skip: skipNo22 }, async () => {
  const pkg = privatePackage();
  const v = tempVault(notes);
  const tmp = mkdtempSync(join(tmpdir(), 'k0-startcache-tmp-'));
  try {
    const clean = await run(NODE22!, scanArgs(pkg.cli, v.root), tmp);
    assert.equal(clean.code, 0, clean.log.slice(-2000));
    const files = cacheFiles(pkg.cache);
    assert.ok(files.length > 3);
    // Every entry damaged: half of them truncated mid-way, the others overwritten with garbage of the same size.
    files.forEach((f, i) => {
      const size = statSync(f).size;
      writeFileSync(f, i % 2 ? Buffer.alloc(size, 0xa5) : Buffer.alloc(Math.floor(size / 3), 0));
    });
    const damaged = await run(NODE22!, scanArgs(pkg.cli, v.root), tmp);
    assert.equal(damaged.code, 0, damaged.log.slice(-2000));
    assert.equal(damaged.stdout, clean.stdout, 'the answer does not depend on the cache');
    assert.equal(accepted(damaged.log), 0, 'no damaged entry was accepted');
    const after = await run(NODE22!, scanArgs(pkg.cli, v.root), tmp);
    assert.equal(after.stdout, clean.stdout);
    assert.ok(accepted(after.log) > 3, 'the damaged entries were rewritten whole');
  } finally {
    v.cleanup();
    pkg.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('Node 22: processes that start together on an empty cache all answer, and leave whole entries', { skip: skipNo22 }, async () => {
  const pkg = privatePackage();
  const v = tempVault(notes);
  const tmp = mkdtempSync(join(tmpdir(), 'k0-startcache-tmp-'));
  try {
    // The index exists first, so the racing runs contend on the compile cache, not on creating the index.
    const seed = await run(NODE22!, [pkg.cli, 'scan', '--vault', v.root], tmp);
    assert.equal(seed.code, 0, seed.log.slice(-2000));
    rmSync(pkg.cache, { recursive: true, force: true });
    const racing = await Promise.all(Array.from({ length: 4 }, () => run(NODE22!, scanArgs(pkg.cli, v.root), tmp)));
    for (const r of racing) assert.equal(r.code, 0, r.log.slice(-2000));
    assert.equal(new Set(racing.map((r) => r.stdout)).size, 1, 'all four gave the same answer');
    // Node writes each entry to a temporary name and renames it: no partial file is left behind.
    assert.deepEqual(cacheFiles(pkg.cache).filter((f) => /\.[^/]*\./.test(f.slice(f.lastIndexOf('/')))), [], 'no temporary file left');
    const next = await run(NODE22!, scanArgs(pkg.cli, v.root), tmp);
    assert.equal(next.stdout, racing[0].stdout);
    assert.ok(accepted(next.log) > 3, 'a later run uses what the racing runs wrote');
    assert.doesNotMatch(next.log, /mismatch|failed/i);
  } finally {
    v.cleanup();
    pkg.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('Node 20 has no compile cache for ES modules: the CLI runs as before and creates no cache folder', async () => {
  const pkg = privatePackage();
  const v = tempVault(notes);
  const tmp = mkdtempSync(join(tmpdir(), 'k0-startcache-tmp-'));
  try {
    const r = await run(process.execPath, scanArgs(pkg.cli, v.root), tmp);
    assert.equal(r.code, 0, r.log.slice(-2000));
    assert.match(r.stdout, /note-\d+\.md/);
    const hasApi = typeof (await import('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';
    if (!hasApi) assert.equal(existsSync(pkg.cache), false);
    assert.deepEqual(readdirSync(tmp), []);
  } finally {
    v.cleanup();
    pkg.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('useCompileCache is off when asked (NODE_DISABLE_COMPILE_CACHE=1, K0MARU_COMPILE_CACHE=0) and on this runtime says whether it is on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k0-startcache-api-'));
  try {
    assert.equal(useCompileCache(dir, { NODE_DISABLE_COMPILE_CACHE: '1' }), undefined);
    assert.equal(useCompileCache(dir, { K0MARU_COMPILE_CACHE: '0' }), undefined);
    assert.equal(existsSync(join(dir, COMPILE_CACHE_DIR)), false, 'turned off: no folder');
    // In a child, so this test process's own module loading is left alone.
    const probe = `const m = require('node:module'); console.log(typeof m.enableCompileCache === 'function' ? 'api' : 'none');`;
    const kind = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).stdout.trim();
    if (kind === 'none') {
      assert.equal(useCompileCache(dir, {}), undefined, 'no API: nothing enabled');
      assert.equal(existsSync(join(dir, COMPILE_CACHE_DIR)), false);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
