import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';
import { findNode22 } from '../../../bench/lib/runtimes';

// Issue 17: a one-shot process pays for every module it loads. A clean `k0maru scan` and a `recall --mode bm25`
// must not load the Markdown parser, the YAML libraries, the xxh3 WASM, zod or the embedding code — only a scan
// that finds a changed file parses and hashes. Which bundle files a run loaded comes from Node's own ESM debug log
// (NODE_DEBUG=esm), and which sources each file holds from its source map (a development build).
const HEAVY = /node_modules\/(markdown-it|js-yaml|yaml|hash-wasm|zod)\/|src\/core\/embed\//;

function loadedSources(args: string[], cwd: string): { sources: string[]; stdout: string } {
  const r = spawnSync(process.execPath, [DIST_CLI, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: cwd, NODE_DEBUG: 'esm' } });
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  const files = [...new Set([...r.stderr.matchAll(/Storing (file:\/\/\S+\.mjs)/g)].map((m) => fileURLToPath(m[1])))];
  assert.ok(files.some((f) => f.endsWith('cli.mjs')), 'the ESM debug log names the files loaded');
  const sources = files.flatMap((f) => {
    const map = `${f}.map`;
    if (!existsSync(map)) return [];
    return (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources.map((s) => join(dirname(f), s).replace(/\\/g, '/'));
  });
  return { sources, stdout: r.stdout };
}

test('a clean scan and a bm25 recall of the built CLI load no parser, YAML, xxh3, zod or embed code; a scan of a changed note does', () => {
  ensureBuilt();
  // npm test builds a development bundle first; a production one (vscode:prepublish) has no maps to read.
  assert.ok(existsSync(`${DIST_CLI}.map`), 'dist/ is a production build (no source maps name the sources): run `node esbuild.mjs` first');
  const notes = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n/note-${i}.md`, `---\ntitle: Note ${i}\n---\n# Note ${i}\n\nCaching and retries ${i}, see [[note-${(i + 1) % 20}]].\n`]));
  const v = tempVault(notes);
  try {
    assert.equal(spawnSync(process.execPath, [DIST_CLI, 'scan'], { cwd: v.root, encoding: 'utf8' }).status, 0);
    const clean = loadedSources(['scan'], v.root);
    assert.match(clean.stdout, /20 unchanged/);
    assert.deepEqual(clean.sources.filter((s) => HEAVY.test(s)), [], 'a clean scan loaded none of them');
    assert.ok(clean.sources.some((s) => s.includes('src/core/scan/scanner.ts')), 'the probe sees the scanner itself');

    const recall = loadedSources(['recall', 'caching retries', '--mode', 'bm25'], v.root);
    assert.match(recall.stdout, /note-\d+\.md/);
    assert.deepEqual(recall.sources.filter((s) => HEAVY.test(s)), [], 'a bm25 recall loaded none of them');

    // Control: the same probe sees the lazy imports once a note changed.
    v.write('n/note-3.md', '# Note 3\n\nRewritten about queues.\n');
    const changed = loadedSources(['scan'], v.root);
    assert.match(changed.stdout, /1 modified/);
    assert.ok(changed.sources.some((s) => s.includes('node_modules/markdown-it/')), 'a changed note is parsed with markdown-it');
    assert.ok(changed.sources.some((s) => s.includes('node_modules/hash-wasm/')), 'and hashed with xxh3');
  } finally {
    v.cleanup();
  }
});

// Issue 17: Node builtins a one-shot command never calls, loaded anyway, cost several ms each: node:crypto (~36
// internal modules; node-sqlite3-wasm used it to seed SQLite's PRNG at open) and node:worker_threads (~25, reached
// through the parse worker's import and through node:util's namespace). Which builtins a process loaded comes from
// Node's own process.moduleLoadList, written at exit by a preload; both runtimes (both SQLite engines) are probed.
const UNUSED_BUILTINS = ['NativeModule crypto', 'NativeModule worker_threads'];

function loadedBuiltins(node: string, args: string[], cwd: string, probeDir: string): string[] {
  const out = join(probeDir, `modules-${Math.random().toString(36).slice(2)}.json`);
  const preload = join(probeDir, 'probe.cjs');
  writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList)));\n`);
  const r = spawnSync(node, ['-r', preload, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: cwd } });
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  return JSON.parse(readFileSync(out, 'utf8')) as string[];
}

test('a clean scan and a bm25 recall load neither node:crypto nor node:worker_threads, on either SQLite engine', () => {
  ensureBuilt();
  const notes = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n/note-${i}.md`, `# Note ${i}\n\nCaching and retries ${i}.\n`]));
  const v = tempVault(notes);
  const probeDir = mkdtempSync(join(tmpdir(), 'k0-probe-'));
  try {
    assert.equal(spawnSync(process.execPath, [DIST_CLI, 'scan'], { cwd: v.root, encoding: 'utf8' }).status, 0);
    for (const node of [process.execPath, findNode22()].filter((n): n is string => !!n)) {
      // Control: the probe sees a builtin that is loaded.
      assert.ok(loadedBuiltins(node, ['-e', "require('node:crypto')"], v.root, probeDir).includes('NativeModule crypto'), 'the probe sees node:crypto when it is loaded');
      for (const args of [['scan'], ['recall', 'caching retries', '--mode', 'bm25']]) {
        const loaded = loadedBuiltins(node, [DIST_CLI, ...args], v.root, probeDir);
        assert.ok(loaded.length > 50, 'the probe wrote the module list');
        assert.deepEqual(UNUSED_BUILTINS.filter((m) => loaded.includes(m)), [], `${node} k0maru ${args[0]} loaded none of them`);
      }
    }
  } finally {
    v.cleanup();
    rmSync(probeDir, { recursive: true, force: true });
  }
});

test('on a Node without process.getBuiltinModule (older than 20.16) the built CLI says what it needs and exits 1', () => {
  ensureBuilt();
  const probeDir = mkdtempSync(join(tmpdir(), 'k0-oldnode-'));
  try {
    const preload = join(probeDir, 'old-node.cjs');
    writeFileSync(preload, 'delete process.getBuiltinModule;\n');
    const r = spawnSync(process.execPath, ['-r', preload, DIST_CLI, '--version'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /k0maru needs Node\.js 20\.16 or newer \(this is v\d+\.\d+\.\d+\)/);
    assert.equal(r.stdout, '', 'nothing else ran');
    const ok = spawnSync(process.execPath, [DIST_CLI, '--version'], { encoding: 'utf8' });
    assert.equal(ok.status, 0, 'the control without the preload runs');
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
});
