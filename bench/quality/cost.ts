// What the shipped paraphrase/floor changes cost per recall, in-process: the default hybrid (blend 0.8 + lift +
// answer gate) against the previous default (blend 0.8, floor only) and BM25, interleaved query by query in one
// run over every graded and off-topic query, `--reps` rounds (default 7). Query vectors are embedded once up
// front: the figures are the recall's own cost (fusion, floor, gate's FTS probes, dressing), not the embedding.
//
//   npx tsx bench/quality/cost.ts [--reps 7]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { recall } from '../../src/core/search/recall';
import { DEFAULT_FUSION, fuse, indexGraph, type FusionOptions } from '../../src/core/search/fusion';
import { relevanceFloor } from '../../src/core/search/floor';
import type { RecallMode, VectorChannel } from '../../src/core/search/types';
import { corpusDir, openCachedQualityIndex, opt, readGradedQueries } from './graded';

const reps = Number(opt('--reps') ?? 7);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * (xs.length - 1) + 0.5))];

async function main(): Promise<void> {
  const { idx, engine, store } = await openCachedQualityIndex(1);
  const junk = JSON.parse(readFileSync(join(__dirname, 'offtopic.json'), 'utf8')) as { random: string[]; offtopic: string[] };
  const texts = [...readGradedQueries().map((q) => q.query), ...junk.random, ...junk.offtopic];
  const vecs = (await engine.embed(texts)).vectors;
  const qv = new Map(texts.map((t, i) => [t, vecs[i]]));
  const floor = relevanceFloor(engine.config.id)!;
  await engine.dispose();
  const graph = indexGraph(idx);
  const project = { index: idx, paths: { notesRoot: corpusDir() } } as unknown as Parameters<typeof recall>[0];
  const channel = (fusion: FusionOptions, f: number | undefined): VectorChannel => ({ search: async (q, pool) => store.search(qv.get(q)!, pool), pending: () => 0, floor: f, fuse: (l, v) => fuse(l, v, fusion, graph) });
  // floor + 1e-9 finds no calibration, so no gate: the previous default's behaviour.
  const methods: { name: string; mode: RecallMode; channel?: VectorChannel }[] = [
    { name: 'bm25', mode: 'bm25' },
    { name: 'previous default (blend .8, floor)', mode: 'hybrid', channel: channel({ method: 'blend', bm25Weight: 0.8 }, floor + 1e-9) },
    { name: 'default (blend .8 + lift + gate)', mode: 'hybrid', channel: channel(DEFAULT_FUSION, floor) },
  ];
  const ms = new Map(methods.map((m) => [m.name, [] as number[]]));
  const cpu = new Map(methods.map((m) => [m.name, 0]));
  const load0 = loadavg()[0];
  for (let r = 0; r < reps; r++) {
    for (const t of texts) {
      for (const m of methods) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await recall(project, t, { limit: 10, mode: m.mode, vectors: m.channel });
        ms.get(m.name)!.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu.set(m.name, cpu.get(m.name)! + (c.user + c.system) / 1000);
      }
    }
  }
  console.log(`${texts.length} queries × ${reps} rounds, interleaved; load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)} (2 cores)`);
  for (const m of methods) {
    const xs = ms.get(m.name)!;
    console.log(`${m.name}: wall p50 ${pct(xs, 0.5).toFixed(1)} ms, p95 ${pct(xs, 0.95).toFixed(1)} ms; CPU ${(cpu.get(m.name)! / xs.length).toFixed(2)} ms per recall (mean)`);
  }
  idx.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
