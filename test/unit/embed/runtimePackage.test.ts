// The packaged layout of the embedding runtimes: `scripts/package-vsix.mjs --target linux-x64` builds a .vsix that
// carries linux-x64's onnxruntime-node binary and no other platform's, `--generic` one that carries none. Both are
// unpacked and their own bundled embedding worker is run under plain Node: the linux-x64 package embeds on the
// native runtime (forced, so a silent WASM fallback fails the test), the generic one on WASM without a fallback
// warning, and the two give the same vectors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readZip } from '../../e2e/zip';
import { maxAbsDiff } from './helpers';

const REPO = join(__dirname, '..', '..', '..');
const ON_LINUX_X64 = process.platform === 'linux' && process.arch === 'x64';
let out: string;

before(() => {
  out = mkdtempSync(join(tmpdir(), 'k0-vsix-native-'));
});
after(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

function build(flag: string[]): { file: string; zip: Map<string, Buffer> } {
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'package-vsix.mjs'), ...flag, '--out', out], { encoding: 'utf8', timeout: 280_000 });
  assert.equal(r.status, 0, `package-vsix ${flag.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  const file = r.stdout.trim().split('\n').pop()!.replace(/ \(.*\)$/, '');
  assert.ok(existsSync(file), `no .vsix at ${file}`);
  return { file, zip: readZip(readFileSync(file)) };
}

function unpack(zip: Map<string, Buffer>, into: string): string {
  for (const [name, data] of zip) {
    if (!name.startsWith('extension/') || name.endsWith('/')) continue;
    mkdirSync(dirname(join(into, name)), { recursive: true });
    writeFileSync(join(into, name), data);
  }
  return join(into, 'extension');
}

/** Runs the package's own dist/embedWorker.js through the host side (EmbedWorker) in a child Node process. */
function embedWith(extensionRoot: string, runtime: string | undefined): { runtime: string; fallback?: string; vectors: number[][]; warnings: string } {
  const script = `
    const { EmbedWorker } = require(${JSON.stringify(join(REPO, 'src', 'core', 'embed', 'embedWorker.ts'))});
    (async () => {
      const w = new EmbedWorker({ modelDir: ${JSON.stringify(join(extensionRoot, 'dist', 'models', 'use-lite-int8'))}, threads: 1, script: ${JSON.stringify(join(extensionRoot, 'dist', 'embedWorker.js'))} });
      const { vectors } = await w.embed(['How do we lock a payment with Redis?', 'Acquire a Redis mutex before charging', 'ﬁ ligature ＡＢＣ 中文']);
      process.stdout.write(JSON.stringify({ runtime: w.runtime, fallback: w.fallbackReason, vectors: vectors.map((v) => Array.from(v)) }));
      await w.dispose();
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const env = { ...process.env };
  delete env.K0MARU_EMBED_RUNTIME;
  if (runtime) env.K0MARU_EMBED_RUNTIME = runtime;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: REPO, encoding: 'utf8', env, timeout: 120_000 });
  assert.equal(r.status, 0, `embedding from ${extensionRoot} failed:\n${r.stderr}`);
  return { ...JSON.parse(r.stdout), warnings: r.stderr };
}

test('linux-x64 .vsix carries only linux-x64 onnxruntime-node and embeds natively; the generic one carries none and embeds on WASM, same vectors', { timeout: 600_000, skip: ON_LINUX_X64 ? false : 'the native half needs a linux-x64 machine' }, () => {
  const linux = build(['--target', 'linux-x64']);
  const names = [...linux.zip.keys()];
  const native = names.filter((n) => n.startsWith('extension/dist/ort-native/'));
  assert.deepEqual(native.sort(), ['extension/dist/ort-native/linux-x64/libonnxruntime.so.1', 'extension/dist/ort-native/linux-x64/onnxruntime_binding.node']);
  assert.match(linux.zip.get('extension.vsixmanifest')!.toString('utf8'), /TargetPlatform="linux-x64"/);
  assert.ok(names.includes('extension/dist/ort-wasm-simd-threaded.wasm'), 'the WASM runtime stays in as the fallback');
  assert.deepEqual(names.filter((n) => n.includes('node_modules/')), [], 'no node_modules: the bundle finds the binary beside itself');

  const generic = build(['--generic']);
  const gnames = [...generic.zip.keys()];
  assert.deepEqual(gnames.filter((n) => n.includes('ort-native') || n.endsWith('.node')), [], 'the generic .vsix carries no native binary');
  assert.doesNotMatch(generic.zip.get('extension.vsixmanifest')!.toString('utf8'), /TargetPlatform=/);
  const mb = (z: { file: string }) => readFileSync(z.file).length / 1024 / 1024;
  console.log(`linux-x64.vsix ${mb(linux).toFixed(1)} MiB, generic.vsix ${mb(generic).toFixed(1)} MiB`);

  const nativeRun = embedWith(unpack(linux.zip, join(out, 'linux')), 'native');
  assert.equal(nativeRun.runtime, 'native');
  const autoRun = embedWith(join(out, 'linux', 'extension'), undefined);
  assert.equal(autoRun.runtime, 'native', 'auto picks native where the binary is shipped');
  const wasmRun = embedWith(unpack(generic.zip, join(out, 'generic')), undefined);
  assert.equal(wasmRun.runtime, 'wasm');
  assert.equal(wasmRun.fallback, undefined, 'no binary shipped is not a failure to report');
  assert.doesNotMatch(wasmRun.warnings, /K0MARU_EMBED_RUNTIME/);
  // The packaged model is the int8 one: MatMulInteger runs on different integer kernels in the two runtimes (MLAS
  // on x86 vs WASM SIMD), so the vectors agree to a cosine, not to the float model's 1e-4 per component (that
  // parity is runtimeParity.test.ts's). Same ranking is what matters: two hosts on the two runtimes share one index.
  let worst = 0;
  let lowest = 1;
  nativeRun.vectors.forEach((v, i) => {
    const w = wasmRun.vectors[i];
    worst = Math.max(worst, maxAbsDiff(Float32Array.from(v), Float32Array.from(w)));
    lowest = Math.min(lowest, v.reduce((s, x, k) => s + x * w[k], 0) / Math.sqrt(v.reduce((s, x) => s + x * x, 0) * w.reduce((s, x) => s + x * x, 0)));
  });
  console.log(`packaged int8 model, native vs WASM: max abs diff ${worst.toExponential(2)}, lowest cosine ${lowest.toFixed(6)}`);
  assert.ok(lowest >= 0.999, `packaged native vs WASM lowest cosine ${lowest} (max abs diff ${worst})`);
  // A binary that is there but does not load (corrupt, wrong libc…): WASM answers, the reason is said once per
  // process however many workers start, nothing crashes.
  const broken = join(out, 'broken');
  cpSync(join(out, 'linux', 'extension'), broken, { recursive: true });
  writeFileSync(join(broken, 'dist', 'ort-native', 'linux-x64', 'onnxruntime_binding.node'), 'not an ELF file');
  const twice = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
    const { EmbedWorker } = require(${JSON.stringify(join(REPO, 'src', 'core', 'embed', 'embedWorker.ts'))});
    const root = ${JSON.stringify(broken)};
    (async () => {
      const out = [];
      for (let i = 0; i < 2; i++) {
        const w = new EmbedWorker({ modelDir: root + '/dist/models/use-lite-int8', threads: 1, script: root + '/dist/embedWorker.js' });
        const { vectors } = await w.embed(['How do we lock a payment with Redis?']);
        out.push({ runtime: w.runtime, fallback: w.fallbackReason, norm: Math.hypot(...vectors[0]) });
        await w.dispose();
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`], { cwd: REPO, encoding: 'utf8', env: { ...process.env, K0MARU_EMBED_RUNTIME: '' }, timeout: 120_000 });
  assert.equal(twice.status, 0, `a corrupt native binary crashed the embedding: ${twice.stderr}`);
  const runs = JSON.parse(twice.stdout) as { runtime: string; fallback?: string; norm: number }[];
  for (const r of runs) {
    assert.equal(r.runtime, 'wasm');
    assert.match(r.fallback ?? '', /onnxruntime-node did not load from .*ort-native\/linux-x64/);
    assert.ok(Math.abs(r.norm - 1) < 1e-4);
  }
  assert.equal(twice.stderr.match(/K0MARU_EMBED_RUNTIME/g)?.length, 1, `the fallback is said exactly once:\n${twice.stderr}`);

  // Forcing native where the package has no binary is an error, not a silent WASM run.
  const env = { ...process.env, K0MARU_EMBED_RUNTIME: 'native' };
  const forced = spawnSync(process.execPath, ['--import', 'tsx', '-e', `
    const { EmbedWorker } = require(${JSON.stringify(join(REPO, 'src', 'core', 'embed', 'embedWorker.ts'))});
    const root = ${JSON.stringify(join(out, 'generic', 'extension'))};
    new EmbedWorker({ modelDir: root + '/dist/models/use-lite-int8', threads: 1, script: root + '/dist/embedWorker.js' }).start()
      .then(() => process.exit(3), (e) => { console.log(e.code + ' ' + e.message); process.exit(0); });`], { cwd: REPO, encoding: 'utf8', env, timeout: 120_000 });
  assert.equal(forced.status, 0, `forced native on the generic package did not fail: ${forced.stdout}${forced.stderr}`);
  assert.match(forced.stdout, /^MODEL_UNAVAILABLE .*no onnxruntime-node binary for linux-x64/);
});
