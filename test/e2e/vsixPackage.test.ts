/**
 * The .vsix as a user builds it from a fresh clone: `npm run package` (and the plain `vsce package` it wraps, which a
 * person types too) in a copy of the project's sources in a temp dir (so the shared dist/ is never touched), then the
 * archive opened and read: it must carry production bundles — minified, no source maps — and a manifest vsce
 * accepts without flags (repository, bugs, homepage).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO } from '../helpers/build';
import { readZip } from './zip';

// What a clone holds that the package is built from (tests, benchmarks and the demo vault are not shipped).
const SOURCES = ['src', 'webview', 'media', 'scripts', 'esbuild.mjs', 'package.json', 'package-lock.json', 'README.md', 'LICENSE', '.vscodeignore', 'tsconfig.json'];

let work: string;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'k0-package-'));
  for (const f of SOURCES) if (existsSync(join(REPO, f))) cpSync(join(REPO, f), join(work, f), { recursive: true });
  // The installed dependencies, as `npm ci` would leave them (read only by the build).
  symlinkSync(join(REPO, 'node_modules'), join(work, 'node_modules'), 'dir');
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * What tells esbuild's production output from its development output, whatever the bundle's size: a development
 * bundle ends with a source-map comment and marks where each module starts (`// src/core/…`, `// node_modules/…`);
 * a minified one has neither. (Line lengths do not tell: template literals keep their line breaks.)
 */
function minified(text: string): { ok: boolean; map: boolean; moduleComments: number } {
  const map = /\/\/# sourceMappingURL=/.test(text);
  const moduleComments = (text.match(/^\s*\/\/ (src|webview|node_modules)\//gm) ?? []).length;
  return { ok: !map && moduleComments === 0, map, moduleComments };
}

function vsixIn(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.vsix'));
}

test('`npm run package` builds production bundles and a .vsix that carries them, minified and without source maps', { timeout: 300_000 }, () => {
  const r = spawnSync('npm', ['run', 'package'], { cwd: work, encoding: 'utf8', timeout: 280_000, env: { ...process.env, npm_config_yes: 'true' } });
  assert.equal(r.status, 0, `npm run package failed:\n${r.stdout}\n${r.stderr}`);
  const [vsix] = vsixIn(work);
  assert.ok(vsix, `no .vsix in ${work}: ${readdirSync(work).join(', ')}`);
  const zip = readZip(readFileSync(join(work, vsix)));
  const names = [...zip.keys()];
  assert.deepEqual(names.filter((n) => n.endsWith('.map')), [], 'no source maps in the package');
  assert.deepEqual(names.filter((n) => n.startsWith('extension/node_modules/') || n.startsWith('extension/src/') || n.startsWith('extension/test/')), [], 'only bundles, no sources or dependencies');
  // Every bundle esbuild writes (the lazily loaded chunks too); the WASM loaders copied from onnxruntime are not ours.
  const bundles = names.filter((n) => /^extension\/dist\/(webview\/)?[^/]+\.(js|mjs|cjs)$/.test(n) && !/\/ort-wasm/.test(n));
  for (const needed of ['extension.js', 'extensionConsole.js', 'embedWorker.js', 'parseWorker.js', 'cli.mjs', 'mcp.mjs', 'webview/webview.js']) {
    assert.ok(bundles.includes(`extension/dist/${needed}`), `dist/${needed} is in the package`);
  }
  const loose = bundles.map((n) => ({ n, ...minified(zip.get(n)!.toString('utf8')) })).filter((b) => !b.ok);
  assert.deepEqual(loose, [], 'every bundle is a production (minified) build');
  // The minified CLI from the package works: init, offload a real log and recall on a fresh project.
  const unpacked = join(work, 'unpacked');
  for (const [name, data] of zip) {
    if (!name.startsWith('extension/') || name.endsWith('/')) continue;
    mkdirSync(dirname(join(unpacked, name)), { recursive: true });
    writeFileSync(join(unpacked, name), data);
  }
  const project = join(work, 'project');
  mkdirSync(project);
  spawnSync('git', ['init', '-q'], { cwd: project });
  const run = (args: string[]) => {
    const c = spawnSync(process.execPath, [join(unpacked, 'extension', 'dist', 'cli.mjs'), ...args, '--vault', project], { cwd: project, encoding: 'utf8', timeout: 120_000 });
    assert.equal(c.status, 0, `packaged k0maru ${args.join(' ')}: ${c.stderr}`);
    return c.stdout;
  };
  run(['init']);
  const off = JSON.parse(run(['offload', '--threshold', '0', '--task', 'pytest', '--json', join(REPO, 'test/fixtures/logs/long-pytest-one-failure.log')]));
  assert.match(off.nodeId, /^node_[0-9a-f]{8}$/);
  assert.ok(Array.isArray(JSON.parse(run(['recall', 'vision', '--json'])).hits));
  const manifest = JSON.parse(zip.get('extension/package.json')!.toString('utf8'));
  assert.match(manifest.repository?.url ?? manifest.repository ?? '', /^https:\/\/|^git\+https:\/\//);
  assert.ok(manifest.bugs?.url && manifest.homepage, 'bugs and homepage are set');
});

test('a plain `vsce package`, no flags, succeeds too (it runs the same production build first)', { timeout: 300_000 }, () => {
  for (const f of vsixIn(work)) rmSync(join(work, f));
  const vsce = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package'], { cwd: work, encoding: 'utf8', timeout: 280_000 });
  assert.equal(r.status, 0, `vsce package failed:\n${r.stdout}\n${r.stderr}`);
  assert.equal(vsixIn(work).length, 1);
  const zip = readZip(readFileSync(join(work, vsixIn(work)[0]!)));
  assert.ok(minified(zip.get('extension/dist/extension.js')!.toString('utf8')).ok, 'the extension bundle is minified');
});

test('the README says how to build and install the .vsix', () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  assert.match(readme, /npm run package/);
  assert.match(readme, /--install-extension [^\s`]*\.vsix/);
});
