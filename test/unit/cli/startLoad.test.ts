import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';

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
