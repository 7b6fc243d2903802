// Which onnxruntime embeds faster, in one run: onnxruntime-node (native) vs onnxruntime-web (WASM), 1 vs 2
// threads, batches of length-sorted passages vs batches in corpus order, batch 8 vs 32 — on the real passages
// of the ADR corpus (../shared/corpus/adr-vault read in place, split exactly as the vector channel splits it),
// then one full embed of every passage on the fastest configuration.
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
import { bundledModelDir } from '../src/core/embed/modelLocation';
import type { RuntimeName } from '../src/core/embed/runtime';
import { IndexDb } from '../src/core/index/db';
import { IncrementalScanner } from '../src/core/scan/scanner';
import { DEFAULT_PASSAGES, passagesOf } from '../src/core/search/vector';
import { round } from './lib/stats';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const corpus = join(__dirname, '..', '..', 'shared', 'corpus', 'adr-vault');

interface Config {
  runtime: RuntimeName;
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
  const engine = await EmbeddingEngine.load(bundledModelDir(), { runtime: cfg.runtime, threads: cfg.threads, batchSize: cfg.batch });
  await engine.embed(['warm up the embedding model']);
  const loadMs = performance.now() - t0;
  const load0 = loadavg()[0];
  const cpu0 = process.cpuUsage();
  const t1 = performance.now();
  if (cfg.order === 'sorted') await engine.embed(texts);
  else for (let i = 0; i < texts.length; i += cfg.batch) await engine.embed(texts.slice(i, i + cfg.batch));
  const s = (performance.now() - t1) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await engine.dispose();
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
  const configs: Config[] = [
    { runtime: 'wasm', threads: 1, batch: 32, order: 'sorted' },
    { runtime: 'native', threads: 1, batch: 32, order: 'sorted' },
    { runtime: 'wasm', threads: 2, batch: 32, order: 'sorted' },
    { runtime: 'native', threads: 2, batch: 32, order: 'sorted' },
    { runtime: 'wasm', threads: 2, batch: 32, order: 'corpus' },
    { runtime: 'native', threads: 2, batch: 32, order: 'corpus' },
    { runtime: 'native', threads: 2, batch: 8, order: 'sorted' },
  ];
  const loadBefore = loadavg();
  const runs: Record<string, unknown>[] = [];
  try {
    for (let round = 0; round < opt('--rounds', 1); round++) for (const cfg of configs) runs.push({ round, ...runChild(cfg, sampleFile) });
    const full = args.includes('--no-full') ? undefined : runChild({ runtime: 'native', threads: 2, batch: 32, order: 'sorted' }, allFile);
    const rate = (rt: RuntimeName, threads: number, order = 'sorted') =>
      runs.filter((r) => r.runtime === rt && r.threads === threads && r.order === order && r.batch === 32).map((r) => Number(r.perSecond));
    const mean = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length), 1);
    const results = {
      date: new Date().toISOString(),
      corpus: { notes, passages: texts.length, sample: sampleN },
      loadAverageBefore: loadBefore.map((x) => round(x, 1)),
      loadAverageAfter: loadavg().map((x) => round(x, 1)),
      runs,
      ratios: {
        nativeOverWasm1Thread: round(mean(rate('native', 1)) / mean(rate('wasm', 1)), 2),
        nativeOverWasm2Threads: round(mean(rate('native', 2)) / mean(rate('wasm', 2)), 2),
        sortedOverCorpusOrderNative: round(mean(rate('native', 2)) / mean(rate('native', 2, 'corpus')), 2),
        sortedOverCorpusOrderWasm: round(mean(rate('wasm', 2)) / mean(rate('wasm', 2, 'corpus')), 2),
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
