import type { IndexDb } from '../index/db';
import { cancelled } from '../host/cancel';
import { createVectorChannel } from './channel';
import { ModelLoader } from './modelLoader';

export interface FillAllOptions {
  /** Model id or folder; $K0MARU_MODEL or the bundled model when absent. */
  model?: string;
  env?: NodeJS.ProcessEnv;
  /** ORT threads: a command a person waits for uses both cores by default. */
  threads?: number;
  /** Told after the model load and after every step: distinct passages embedded so far / to embed in this run. */
  onProgress?(done: number, total: number): void;
  /** Stops between batches (Ctrl+C): what was embedded so far is stored and the next run resumes from there. */
  signal?: AbortSignal;
  /** One step's length (default 3 s): progress is reported and the signal checked this often, give or take a batch. */
  stepMs?: number;
}

export interface FillAllReport {
  model: string;
  dimension: number;
  /** Passages of the index (as recall counts them) and how many have a vector now. */
  passages: number;
  embedded: number;
  /** Distinct passages embedded by this run (the others were stored already). */
  embeddedNow: number;
  /** Left without a vector: the model failed on them alone (skipped for this run, tried again by the next). */
  skipped: number;
  /** Passages longer than the model reads, embedded from their beginning. */
  oversized: number;
  loadMs: number;
  embedMs: number;
  passagesPerSecond: number;
}

/**
 * Brings every vector of the index up to date for one model (`k0maru scan --embed`): loads the model in its worker
 * thread and embeds every passage that has no stored vector, without a time budget, reporting progress. A
 * missing or broken model fails with MODEL_UNAVAILABLE (nothing is half-written: vectors are stored per batch).
 */
export async function embedEverything(index: IndexDb, opts: FillAllOptions = {}): Promise<FillAllReport> {
  const t0 = performance.now();
  const loader = new ModelLoader({ model: opts.model, env: opts.env, threads: opts.threads ?? 2 });
  const onAbort = () => void loader.dispose();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const model = await loader.load();
    const loadMs = performance.now() - t0;
    // The snapshot beside the index: read when current, and written at the end so the next one-shot hybrid recall
    // reads one file instead of every vector through SQLite.
    const channel = createVectorChannel({ index, embedder: model.worker, modelId: model.config.id, dimension: model.config.dimension, snapshot: true });
    const total = channel.pending();
    let done = 0;
    let skipped = 0;
    let oversized = 0;
    const t1 = performance.now();
    opts.onProgress?.(0, total);
    while (channel.pending() > 0) {
      if (opts.signal?.aborted) throw cancelled('embedding');
      const n = await channel.catchUp(opts.stepMs ?? 3000);
      done += n;
      skipped += channel.lastCatchUp?.skipped ?? 0;
      oversized += channel.lastCatchUp?.oversized ?? 0;
      opts.onProgress?.(done, total);
      // Only passages the model failed on alone are left: they stay pending for the next run.
      if (n === 0 && channel.lastCatchUp?.stoppedBy === 'done') break;
    }
    const embedMs = performance.now() - t1;
    channel.store.saveSnapshot();
    const size = channel.store.size;
    return {
      model: model.config.id,
      dimension: model.config.dimension,
      passages: size.passages,
      embedded: size.embedded,
      embeddedNow: done,
      skipped,
      oversized,
      loadMs: Math.round(loadMs),
      embedMs: Math.round(embedMs),
      passagesPerSecond: embedMs > 0 ? Math.round((done * 10_000) / embedMs) / 10 : 0,
    };
  } catch (err) {
    if (opts.signal?.aborted) throw cancelled('embedding');
    throw err;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await loader.dispose();
  }
}
