// Bundles every entry point that exists. Each bundle is self-contained; WASM assets are copied next to it
// because the libraries that load them look beside their own script (__dirname).
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, copyFileSync, readdirSync, rmSync, chmodSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { convert as convertEmbeddingModel, isUpToDate as embeddingModelUpToDate } from './scripts/convert-model.mjs';
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync('package.json', 'utf8'));

const production = process.argv.includes('--production');

// onnxruntime-node requires its N-API binary by a path relative to its own script; in a bundle that script is
// gone, so the require points at dist/ort-native/<platform>-<arch>/ (filled below). Only src/core/embed/runtime.ts
// reaches it, and only after checking the binary is there.
const ORT_BINDING_REQUIRE = /require\(`\.\.\/bin\/napi-v6\/\$\{process\.platform\}\/\$\{process\.arch\}\/onnxruntime_binding\.node`\)/;
const ortNativeBinding = {
  name: 'ort-native-binding',
  setup(build) {
    build.onLoad({ filter: /onnxruntime-node[\\/]dist[\\/]binding\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!ORT_BINDING_REQUIRE.test(src)) throw new Error(`${args.path}: its binding require changed; update esbuild.mjs`);
      const to = "require(require('path').join(__dirname, 'ort-native', process.platform + '-' + process.arch, 'onnxruntime_binding.node'))";
      return { contents: src.replace(ORT_BINDING_REQUIRE, to), loader: 'js' };
    });
  },
};
// node-sqlite3-wasm requires node:crypto when it is evaluated, for its VFS's xRandomness alone, and SQLite calls
// that once per process, in sqlite3_open, to seed its own PRNG (temp file names, journal nonces; we never call
// random() or randomblob()). Loading node:crypto for those 256 bytes cost a Node 20 one-shot command ~5 ms
// (issue 17), so the seed comes from Math.random, which V8 seeds from the OS's entropy for every isolate — what
// SQLite's own unix VFS falls back to without /dev/urandom is weaker (time and pid).
const SQLITE_CRYPTO_REQUIRE = 'const crypto=require("node:crypto");';
const sqliteSeedWithoutCrypto = {
  name: 'sqlite-seed-without-crypto',
  setup(build) {
    build.onLoad({ filter: /node-sqlite3-wasm[\\/]dist[\\/]node-sqlite3-wasm\.js$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (src.split(SQLITE_CRYPTO_REQUIRE).length !== 2) throw new Error(`${args.path}: its node:crypto require changed; update esbuild.mjs`);
      const seed = 'const crypto={randomFillSync:(buf)=>{for(let i=0;i<buf.length;i++)buf[i]=(Math.random()*256)|0;return buf}};';
      return { contents: src.replace(SQLITE_CRYPTO_REQUIRE, seed), loader: 'js' };
    });
  },
};
// hash-wasm's main module inlines every algorithm's WASM as base64 (268 KB of the parse worker's 590 KB bundle);
// we use xxh3 alone, which the package also ships as a module of its own (18 KB): every bundle takes that one.
const hashWasmXxh3Only = { 'hash-wasm': './node_modules/hash-wasm/dist/xxhash3.umd.min.js' };
// The require above is computed at run time on purpose.
const quietRequire = { 'unsupported-require-call': 'silent' };
const watch = process.argv.includes('--watch');
const nodeCommon = {
  bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: !production,
  minify: production, logLevel: 'warning', external: ['vscode'], plugins: [ortNativeBinding, sqliteSeedWithoutCrypto], logOverride: quietRequire,
  alias: hashWasmXxh3Only,
  // Several ESM-only dependencies read import.meta.url; give them a CommonJS equivalent.
  define: { 'import.meta.url': 'importMetaUrl', __K0MARU_VERSION__: JSON.stringify(version), __K0MARU_BUNDLED__: 'true' },
  banner: { js: "const importMetaUrl = require('url').pathToFileURL(__filename).href;" },
};

const entries = [
  { in: 'src/extension/extension.ts', out: 'dist/extension.js', ...nodeCommon },
  // The embedding worker's dev-mode tsx path is never taken from a bundle (embedWorker.js sits beside it).
  { in: 'src/extension/core.ts', out: 'dist/extensionCore.js', ...nodeCommon, logOverride: { ...quietRequire, 'require-resolve-not-external': 'silent' } },
  { in: 'src/extension/coreGuard.ts', out: 'dist/extensionGuard.js', ...nodeCommon },
  { in: 'src/extension/coreTools.ts', out: 'dist/extensionTools.js', ...nodeCommon },
  { in: 'src/extension/coreDistill.ts', out: 'dist/extensionDistill.js', ...nodeCommon },
  // The console's host side (protocol, dispatch, the console use cases): loaded when a console page first speaks.
  { in: 'src/extension/coreConsole.ts', out: 'dist/extensionConsole.js', ...nodeCommon },
  // The o200k BPE tokenizer on its own: loaded by path on the first token count (src/core/tokens/count.ts).
  { in: 'node_modules/gpt-tokenizer/cjs/encoding/o200k_base.js', out: 'dist/o200k.cjs', ...nodeCommon, sourcemap: false },
  // re2-wasm's JavaScript on its own, required by path on the first regex only RE2 may run (src/core/guard/re2Pool.ts).
  { in: 'node_modules/re2-wasm/build/src/re2.js', out: 'dist/re2.cjs', ...nodeCommon, sourcemap: false },
  { in: 'src/core/embed/worker.ts', out: 'dist/embedWorker.js', ...nodeCommon },
  // The parse worker of large scans (src/core/scan/parsePool.ts): markdown-it, js-yaml and xxh3, nothing else.
  { in: 'src/core/scan/parseWorker.ts', out: 'dist/parseWorker.js', ...nodeCommon },
  // The console page (and its CSS, imported by main.ts) in a folder of its own: the VS Code webview may load files
  // from that folder only (its localResourceRoots), so the page can never read the extension's code or models;
  // `k0maru ui` serves the same two files.
  // Always minified (with a source map in development): Mermaid makes it 9 MB otherwise, 4 MB parsed on every open.
  { in: 'webview/main.ts', out: 'dist/webview/webview.js', bundle: true, platform: 'browser', format: 'iife',
    target: 'es2022', sourcemap: !production, minify: true, logLevel: 'warning' },
  // mocha's optional parallel runner uses require.resolve on its own files; we never run it in parallel.
  { in: 'test/integration/index.ts', out: 'dist/test/integration/index.js', ...nodeCommon, logOverride: { ...quietRequire, 'require-resolve-not-external': 'silent' } },
];

// WASM files the bundles load at run time: [source, destination file name in dist/].
const assets = [
  ['node_modules/node-sqlite3-wasm/dist/node-sqlite3-wasm.wasm', 'node-sqlite3-wasm.wasm'],
];
const treeSitterDir = 'node_modules/@vscode/tree-sitter-wasm/wasm';
// Only the runtime and the grammars the guard classifies with (src/core/guard/languages.ts): the package ships
// ~7 MB less than with every grammar @vscode/tree-sitter-wasm carries.
const GRAMMARS = ['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'cpp', 'c-sharp', 'java'];
for (const f of ['tree-sitter.wasm', ...GRAMMARS.map((g) => `tree-sitter-${g}.wasm`)]) {
  if (existsSync(join(treeSitterDir, f))) assets.push([join(treeSitterDir, f), f]);
}
// onnxruntime-web loads its WASM glue (.mjs) and binary from beside the embedding worker bundle.
for (const f of ['ort-wasm-simd-threaded.wasm', 'ort-wasm-simd-threaded.mjs']) assets.push([`node_modules/onnxruntime-web/dist/${f}`, f]);

// onnxruntime-node's CPU binaries (N-API) for the platforms this build carries, in dist/ort-native/<platform>-<arch>/.
// K0MARU_ORT_NATIVE: `host` (this machine's, when the package ships it), `none` (a generic, WASM-only package),
// or a comma list such as `linux-x64,darwin-arm64` (a per-platform .vsix: scripts/package-vsix.mjs). Unset: `host`
// for a development build, `none` for --production (what `vsce package` runs), so a .vsix without a --target never
// carries one platform's 45 MB binary. Folders of platforms not asked for are removed: a build carries exactly these.
const ORT_NATIVE_SRC = 'node_modules/onnxruntime-node/bin/napi-v6';
function nativeTargets() {
  const v = (process.env.K0MARU_ORT_NATIVE ?? (production ? 'none' : 'host')).trim();
  if (v === 'none' || v === '') return [];
  const list = v === 'host' ? [`${process.platform}-${process.arch}`] : v.split(',').map((t) => t.trim()).filter(Boolean);
  for (const t of list) {
    const [platform, arch] = t.split('-');
    const dir = join(ORT_NATIVE_SRC, platform ?? '', arch ?? '');
    if (!existsSync(join(dir, 'onnxruntime_binding.node'))) {
      if (v === 'host') return []; // no binary for this machine: the WASM runtime serves it
      throw new Error(`K0MARU_ORT_NATIVE=${v}: no onnxruntime-node binary for ${t} in ${ORT_NATIVE_SRC}`);
    }
  }
  return list;
}
function copyNativeRuntime() {
  const targets = nativeTargets();
  const root = join('dist', 'ort-native');
  if (existsSync(root)) for (const f of readdirSync(root)) if (!targets.includes(f)) rmSync(join(root, f), { recursive: true, force: true });
  for (const t of targets) {
    const [platform, arch] = t.split('-');
    const from = join(ORT_NATIVE_SRC, platform, arch);
    const to = join(root, t);
    mkdirSync(to, { recursive: true });
    for (const f of readdirSync(from)) {
      const dest = join(to, f);
      // 45 MB on linux-x64: skip the copy when the same file is already there.
      if (existsSync(dest) && statSync(dest).size === statSync(join(from, f)).size && statSync(dest).mtimeMs >= statSync(join(from, f)).mtimeMs) continue;
      copyFileSync(join(from, f), dest);
    }
  }
}
if (existsSync('node_modules/re2-wasm/build/wasm/re2.wasm')) assets.push(['node_modules/re2-wasm/build/wasm/re2.wasm', 're2.wasm']);

// The CLI and the MCP server are one ESM build split into chunks: each command and each heavy engine is loaded
// only when used, so a git hook or an MCP spawn compiles a few hundred KB instead of every engine we ship.
// CommonJS dependencies inside get `require`, `__filename` and `__dirname` from the banner; the chunks sit in
// dist/ itself so libraries that look for their .wasm beside their own script find it.
const splitBuild = {
  // The shebang must be the very first line of the executable; esbuild keeps the one in src/cli/bin.ts.
  entryPoints: { cli: 'src/cli/bin.ts', mcp: 'src/mcp/bin.ts' },
  outdir: 'dist', bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20',
  outExtension: { '.js': '.mjs' }, chunkNames: 'lazy-[name]-[hash]', entryNames: '[name]',
  sourcemap: !production, minify: production, logLevel: 'warning', external: ['vscode'], plugins: [ortNativeBinding, sqliteSeedWithoutCrypto], logOverride: quietRequire,
  alias: hashWasmXxh3Only,
  define: { __K0MARU_VERSION__: JSON.stringify(version), __K0MARU_BUNDLED__: 'true' },
  banner: {
    js: [
      // No ESM import of a builtin in the banner: it is in every chunk, and an imported builtin's namespace is built
      // with every lazy getter evaluated (node:module's loads worker_threads; issue 17, measured 4 ms of a Node 22
      // clean scan). process.getBuiltinModule: Node >= 20.16 (package.json engines).
      "if (typeof process.getBuiltinModule !== 'function') { process.stderr.write(`k0maru needs Node.js 20.16 or newer (this is ${process.version})\\n`); process.exit(1); }",
      "const { createRequire: __k0CreateRequire } = process.getBuiltinModule('node:module');",
      'const require = __k0CreateRequire(import.meta.url);',
      "const __filename = require('node:url').fileURLToPath(import.meta.url);",
      "const __dirname = require('node:path').dirname(__filename);",
    ].join('\n'),
  },
};

async function main() {
  mkdirSync('dist', { recursive: true });
  for (const [src, name] of assets) if (existsSync(src)) copyFileSync(src, join('dist', name));
  copyNativeRuntime();
  // The bundled embedding model (USE-lite → ONNX, ~0.2 s; skipped when already converted from the same package):
  // its int8 conversion is the default (less than half the CPU per passage, same quality: docs/embeddings.md); the
  // float one is the parity reference for tests, so a package (--production) carries only the int8 one.
  if (!embeddingModelUpToDate('dist/models/use-lite-int8', { int8: true })) convertEmbeddingModel('dist/models/use-lite-int8', { int8: true });
  if (!production && !embeddingModelUpToDate('dist/models/use-lite')) convertEmbeddingModel('dist/models/use-lite');
  const builds = entries.filter((e) => existsSync(e.in)).map(({ in: entry, out, ...opts }) => {
    mkdirSync(dirname(out), { recursive: true });
    return { entryPoints: [entry], outfile: out, ...opts };
  });
  builds.push({ ...splitBuild, metafile: true });
  if (watch) {
    for (const b of builds) await (await esbuild.context(b)).watch();
    return;
  }
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  chmodSync('dist/cli.mjs', 0o755);
  // Lazily loaded chunks (`lazy-*`) are named by content hash: remove the ones this build no longer produced (after writing the new ones,
  // so a process already running from dist/ keeps working), or they would ship in the package.
  const produced = new Set(results.flatMap((r) => Object.keys(r.metafile?.outputs ?? {})).map((p) => p.replace(/^dist\//, '')));
  for (const f of readdirSync('dist')) if (f.startsWith('lazy-') && !produced.has(f)) rmSync(join('dist', f));
}

main().catch((err) => { console.error(err.message ?? err); process.exit(1); });
