// Embedding speed and cost: passages/s through the worker on 1 and 2 threads, host event-loop lag and RSS
// while a vault embeds, hybrid recall p50/p95 at 5,000 notes (query embedding included), bytes added.
//
//   npx tsx bench/embed.ts [--notes 5000] [--passages 192]   → bench/results/embed.json
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { EmbedWorker } from '../src/core/embed/embedWorker';
import { bundledModelDir } from '../src/core/embed/modelLocation';
import { findWasmDir, normalizeInPlace } from '../src/core/embed/engine';
import { createVectorChannel } from '../src/core/embed/channel';
import { openProject } from '../src/core/project';
import { recall } from '../src/core/search/recall';
import { generateVault } from './lib/vaultGen';
import { percentile, round } from './lib/stats';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const corpus = join(__dirname, '..', '..', 'shared', 'corpus', 'adr-vault');

/** ~60-word passages cut from the real corpus: the texts the vector channel embeds. */
function corpusPassages(n: number): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (out.length >= n) return;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.md')) {
        const words = readFileSync(p, 'utf8').split(/\s+/).filter(Boolean);
        for (let i = 0; i + 60 <= words.length && out.length < n; i += 60) out.push(words.slice(i, i + 60).join(' '));
      }
    }
  };
  walk(corpus);
  return out;
}

async function throughput(threads: number, texts: string[], batch: number) {
  const w = new EmbedWorker({ modelDir: bundledModelDir(), threads, batchSize: batch });
  const t0 = performance.now();
  await w.start();
  const startMs = performance.now() - t0;
  await w.embed(texts.slice(0, 8)); // warm-up
  // Control: the host's event-loop lag with nothing embedding (on a shared machine the scheduler alone adds some).
  const idle = monitorEventLoopDelay({ resolution: 5 });
  idle.enable();
  await new Promise((r) => setTimeout(r, 3000));
  idle.disable();
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  let rss = 0;
  const timer = setInterval(() => (rss = Math.max(rss, process.memoryUsage().rss)), 50);
  const t1 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < texts.length; i += 32) await w.embed(texts.slice(i, i + 32));
  const s = (performance.now() - t1) / 1000;
  const cpu = process.cpuUsage(cpu0); // the whole process: host + worker + runtime threads
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  clearInterval(timer);
  lag.disable();
  await w.dispose();
  return { threads, batch, passages: texts.length, perSecond: round(texts.length / s, 1), perCpuSecond: round(texts.length / cpuSeconds, 1), cpuSeconds: round(cpuSeconds, 1), wallSeconds: round(s, 1), sessionStartMs: round(startMs, 0), hostLagMaxMs: round(lag.max / 1e6, 1), hostLagP99Ms: round(lag.percentile(99) / 1e6, 1), idleLagMaxMs: round(idle.max / 1e6, 1), idleLagP99Ms: round(idle.percentile(99) / 1e6, 1), peakRssMB: round(rss / 1e6, 0) };
}

async function hybridLatency(notes: number) {
  const root = mkdtempSync(join(tmpdir(), 'k0-embed-bench-'));
  try {
    const gen = generateVault(join(root, '.k0maru', 'wiki'), notes);
    const project = openProject({ vault: root });
    await project.scan();
    const worker = new EmbedWorker({ modelDir: bundledModelDir(), threads: 2 });
    const cfg = await worker.start();
    const channel = createVectorChannel({ index: project.index, embedder: worker, modelId: cfg.id, dimension: cfg.dimension });
    // Search cost does not depend on the vectors' values: fill the store with random unit vectors instead of
    // spending many minutes embedding a generated vault (query vectors are real: embedded per query).
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    const pending = channel.store.pendingPassages();
    for (let i = 0; i < pending.length; i += 2000) {
      channel.store.put(pending.slice(i, i + 2000).map((p) => ({ hash: p.hash, vector: normalizeInPlace(Float32Array.from({ length: cfg.dimension }, rand)) })));
    }
    channel.store.refresh();
    const times: number[] = [];
    const embedMs: number[] = [];
    const searchMs: number[] = [];
    const bm25Ms: number[] = [];
    for (let i = 0; i < 60; i++) {
      const q = gen.queries[i % gen.queries.length];
      let t = performance.now();
      await recall(project, q, { mode: 'hybrid', vectors: channel, limit: 5 });
      if (i >= 10) times.push(performance.now() - t);
      t = performance.now();
      const { vectors } = await worker.embed([q]);
      embedMs.push(performance.now() - t);
      t = performance.now();
      channel.store.search(vectors[0], 20);
      searchMs.push(performance.now() - t);
      t = performance.now();
      await recall(project, q, { mode: 'bm25', limit: 5 });
      bm25Ms.push(performance.now() - t);
    }
    await worker.dispose();
    project.close();
    const p = (xs: number[]) => ({ p50: round(percentile(xs, 50), 1), p95: round(percentile(xs, 95), 1) });
    return { notes, passages: channel.store.size.passages, p50Ms: round(percentile(times, 50), 1), p95Ms: round(percentile(times, 95), 1), queryEmbedMs: p(embedMs), vectorSearchMs: p(searchMs), bm25RecallMs: p(bm25Ms) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main() {
  const texts = corpusPassages(opt('--passages', 192));
  const size = (p: string) => statSync(p).size;
  const modelDir = bundledModelDir();
  const wasmDir = findWasmDir();
  const bytes = {
    modelOnnx: size(join(modelDir, 'model.onnx')),
    tokenizerJson: size(join(modelDir, 'tokenizer.json')),
    ortWasm: size(join(wasmDir, 'ort-wasm-simd-threaded.wasm')),
    ortMjs: size(join(wasmDir, 'ort-wasm-simd-threaded.mjs')),
  };
  const results = {
    date: new Date().toISOString(),
    bytes: { ...bytes, totalMB: round(Object.values(bytes).reduce((a, b) => a + b, 0) / 1e6, 1) },
    throughput: args.includes('--no-throughput') ? [] : [await throughput(1, texts, 16), await throughput(2, texts, 16), await throughput(2, texts, 32)],
    hybrid: await hybridLatency(opt('--notes', 5000)),
    loadAverage: (await import('node:os')).loadavg(),
  };
  console.log(JSON.stringify(results, null, 2));
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'embed.json'), JSON.stringify(results, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
