// Which model and runtime embed faster, in one run: the float vs the int8 (dynamically quantised, the default)
// conversion of USE-lite, onnxruntime-node (native) vs onnxruntime-web (WASM), 1 vs 2 intra-op threads vs two
// single-threaded sessions side by side, batches of length-sorted passages vs batches in corpus order — on the
// real passages of the ADR corpus (../shared/corpus/adr-vault read in place, split exactly as the vector channel
// splits it), then one full embed of every passage on the default configuration (int8, native, 2 threads).
//
// Each configuration runs in a child process of its own (no runtime's threads or heap linger into the next),
// and the configurations are interleaved over --rounds, so load drift on a shared machine hits all alike.
//
//   npx tsx bench/embedRuntime.ts [--sample 256] [--rounds 1] [--no-full]   → bench/results/embedRuntime.json
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingEngine } from '../src/core/embed/engine';
import { bundledModelDir, floatModelDir } from '../src/core/embed/modelLocation';
import type { RuntimeName } from '../src/core/embed/runtime';
import { IndexDb } from '../src/core/index/db';
import { IncrementalScanner } from '../src/core/scan/scanner';
import { DEFAULT_PASSAGES, passagesOf } from '../src/core/search/vector';
import { round } from './lib/stats';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const corpus = join(__dirname, '..', '..', 'shared', 'corpus', 'adr-vault');

interface Config {
  model: 'float' | 'int8';
  runtime: RuntimeName;
  /** Sessions side by side, each with `threads` intra-op threads, each given half the texts (native only). */
  sessions?: number;
  threads: number;
  batch: number;
  /** sorted: the engine sorts all texts by length before batching; corpus: batches of `batch` in corpus order. */
  order: 'sorted' | 'corpus';
}

/** Every passage the vector channel embeds for the corpus (the scanner's chunks through passagesOf). */
async function corpusPassages(): Promise<{ texts: string[]; notes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'k0-embed-runtime-'));
  try {
    const idx = IndexDb.open(join(dir, 'index.db'));
    const scan = await new IncrementalScanner(idx, corpus).scan({});
    const rows = idx.all('SELECT c.id, c.doc_id, c.heading, c.text, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY d.path, c.id');
    const texts = rows.flatMap((r) => passagesOf({ id: Number(r.id), docId: Number(r.doc_id), title: String(r.title), heading: String(r.heading), text: String(r.text) }, DEFAULT_PASSAGES).map((p) => p.text));
    idx.close();
    return { texts, notes: scan.total };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Child: one configuration on the given texts; prints one JSON line. */
async function child(cfg: Config, textsFile: string): Promise<void> {
  const texts: string[] = JSON.parse(readFileSync(textsFile, 'utf8'));
  const t0 = performance.now();
  const dir = cfg.model === 'int8' ? bundledModelDir() : floatModelDir();
  const engines: EmbeddingEngine[] = [];
  for (let i = 0; i < (cfg.sessions ?? 1); i++) engines.push(await EmbeddingEngine.load(dir, { runtime: cfg.runtime, threads: cfg.threads, batchSize: cfg.batch }));
  for (const e of engines) await e.embed(['warm up the embedding model']);
  const engine = engines[0];
  const loadMs = performance.now() - t0;
  const load0 = loadavg()[0];
  const cpu0 = process.cpuUsage();
  const t1 = performance.now();
  const run = async (e: EmbeddingEngine, part: string[]) => {
    if (cfg.order === 'sorted') await e.embed(part);
    else for (let i = 0; i < part.length; i += cfg.batch) await e.embed(part.slice(i, i + cfg.batch));
  };
  // Side by side: every other text to each session, so both get the same mix of lengths.
  await Promise.all(engines.map((e, k) => run(e, texts.filter((_, i) => i % engines.length === k))));
  const s = (performance.now() - t1) / 1000;
  const cpu = process.cpuUsage(cpu0);
  for (const e of engines) await e.dispose();
  process.stdout.write(`${JSON.stringify({ ...cfg, ran: engine.runtime, passages: texts.length, perSecond: round(texts.length / s, 1), perCpuSecond: round(texts.length / ((cpu.user + cpu.system) / 1e6), 1), wallSeconds: round(s, 1), loadMs: round(loadMs, 0), load1: round((load0 + loadavg()[0]) / 2, 1), peakRssMB: round(process.resourceUsage().maxRSS / 1024, 0) })}\n`);
}

function runChild(cfg: Config, textsFile: string): Record<string, unknown> {
  const r = spawnSync(process.execPath, [...process.execArgv, __filename, '--child', JSON.stringify(cfg), textsFile], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`child ${JSON.stringify(cfg)} failed: ${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop()!;
  const out = JSON.parse(line);
  console.error(line);
  return out;
}

async function main(): Promise<void> {
  if (args[0] === '--child') return child(JSON.parse(args[1]), args[2]);
  const { texts, notes } = await corpusPassages();
  const sampleN = Math.min(texts.length, opt('--sample', 256));
  // An even stride over the corpus: every kind of note, lengths as they come.
  const stride = texts.length / sampleN;
  const sample = Array.from({ length: sampleN }, (_, i) => texts[Math.floor(i * stride)]);
  const work = mkdtempSync(join(tmpdir(), 'k0-embed-runtime-texts-'));
  const sampleFile = join(work, 'sample.json');
  const allFile = join(work, 'all.json');
  writeFileSync(sampleFile, JSON.stringify(sample));
  writeFileSync(allFile, JSON.stringify(texts));
  const configs: Config[] = [];
  for (const [runtime, threads] of [['wasm', 1], ['native', 1], ['wasm', 2], ['native', 2]] as const) {
    for (const model of ['float', 'int8'] as const) configs.push({ model, runtime, threads, batch: 32, order: 'sorted' });
  }
  configs.push(
    { model: 'int8', runtime: 'native', threads: 1, sessions: 2, batch: 32, order: 'sorted' },
    { model: 'int8', runtime: 'native', threads: 2, batch: 32, order: 'corpus' },
    { model: 'int8', runtime: 'wasm', threads: 2, batch: 32, order: 'corpus' },
  );
  const loadBefore = loadavg();
  const runs: Record<string, unknown>[] = [];
  try {
    for (let round = 0; round < opt('--rounds', 1); round++) for (const cfg of configs) runs.push({ round, ...runChild(cfg, sampleFile) });
    const full = args.includes('--no-full') ? undefined : runChild({ model: 'int8', runtime: 'native', threads: 2, batch: 32, order: 'sorted' }, allFile);
    const pick = (rt: RuntimeName, threads: number, model = 'int8', order = 'sorted') =>
      runs.filter((r) => r.runtime === rt && r.threads === threads && r.order === order && r.model === model && r.batch === 32 && !r.sessions);
    const rate = (rt: RuntimeName, threads: number, model = 'int8', order = 'sorted') => pick(rt, threads, model, order).map((r) => Number(r.perSecond));
    const perCpu = (rt: RuntimeName, threads: number, model = 'int8') => pick(rt, threads, model).map((r) => Number(r.perCpuSecond));
    const mean = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length), 1);
    const results = {
      date: new Date().toISOString(),
      corpus: { notes, passages: texts.length, sample: sampleN },
      loadAverageBefore: loadBefore.map((x) => round(x, 1)),
      loadAverageAfter: loadavg().map((x) => round(x, 1)),
      runs,
      ratios: {
        int8OverFloatPerCpuNative1Thread: round(mean(perCpu('native', 1)) / mean(perCpu('native', 1, 'float')), 2),
        int8OverFloatPerCpuNative2Threads: round(mean(perCpu('native', 2)) / mean(perCpu('native', 2, 'float')), 2),
        int8OverFloatPerCpuWasm1Thread: round(mean(perCpu('wasm', 1)) / mean(perCpu('wasm', 1, 'float')), 2),
        int8OverFloatPerCpuWasm2Threads: round(mean(perCpu('wasm', 2)) / mean(perCpu('wasm', 2, 'float')), 2),
        nativeOverWasm1Thread: round(mean(rate('native', 1)) / mean(rate('wasm', 1)), 2),
        nativeOverWasm2Threads: round(mean(rate('native', 2)) / mean(rate('wasm', 2)), 2),
        sortedOverCorpusOrderNative: round(mean(rate('native', 2)) / mean(rate('native', 2, 'int8', 'corpus')), 2),
        sortedOverCorpusOrderWasm: round(mean(rate('wasm', 2)) / mean(rate('wasm', 2, 'int8', 'corpus')), 2),
      },
      fullEmbed: full,
    };
    console.log(JSON.stringify(results, null, 2));
    mkdirSync(join(__dirname, 'results'), { recursive: true });
    writeFileSync(join(__dirname, 'results', 'embedRuntime.json'), `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
