#!/usr/bin/env node
// Builds the .vsix files with and without onnxruntime-node's native binary (see src/core/embed/runtime.ts):
//
//   node scripts/package-vsix.mjs --target linux-x64 [--out DIR]   one platform's .vsix: its binary only (vsce --target)
//   node scripts/package-vsix.mjs --generic [--out DIR]            any platform: no native binary, WASM only
//
// The package is built in a copy of the sources in a temp dir (node_modules linked), so the shared dist/ is never
// rebuilt in production mode or stripped of its binary under someone's running tests. Prints the .vsix path.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'webview', 'media', 'scripts', 'esbuild.mjs', 'package.json', 'package-lock.json', 'README.md', 'LICENSE', '.vscodeignore', 'tsconfig.json'];
// vsce's platform targets for which onnxruntime-node 1.30 ships a CPU binary (bin/napi-v6/<platform>/<arch>).
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];

const args = process.argv.slice(2);
const value = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const target = value('--target');
const generic = args.includes('--generic');
const outDir = resolve(value('--out') ?? REPO);

function fail(message) {
  console.error(`package-vsix: ${message}`);
  process.exit(2);
}

if (generic === Boolean(target)) fail('give exactly one of --target <platform-arch> or --generic');
if (target && !TARGETS.includes(target)) fail(`--target must be one of ${TARGETS.join(', ')}, not ${target}`);

const { name, version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const file = join(outDir, `${name}-${version}-${target ?? 'generic'}.vsix`);
const work = mkdtempSync(join(tmpdir(), 'k0-vsix-'));
try {
  for (const f of SOURCES) if (existsSync(join(REPO, f))) cpSync(join(REPO, f), join(work, f), { recursive: true });
  symlinkSync(join(REPO, 'node_modules'), join(work, 'node_modules'), 'dir');
  const vsce = join(REPO, 'node_modules', '@vscode', 'vsce', 'vsce');
  // vsce runs `vscode:prepublish` (the production build), which copies exactly the binaries K0MARU_ORT_NATIVE names.
  const vsceArgs = ['package', ...(target ? ['--target', target] : []), '-o', join(work, 'out.vsix')];
  const r = spawnSync(process.execPath, [vsce, ...vsceArgs], {
    cwd: work,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, K0MARU_ORT_NATIVE: target ?? 'none', npm_config_yes: 'true' },
  });
  if (r.status !== 0) fail(`vsce ${vsceArgs.join(' ')} failed (exit ${r.status ?? r.signal})`);
  mkdirSync(outDir, { recursive: true });
  // A rename across file systems fails: copy then.
  try {
    renameSync(join(work, 'out.vsix'), file);
  } catch {
    cpSync(join(work, 'out.vsix'), file);
  }
  console.log(`${file} (${(statSync(file).size / 1024 / 1024).toFixed(1)} MiB)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
