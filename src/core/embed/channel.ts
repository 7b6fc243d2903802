import type { IndexDb } from '../index/db';
import { isK0Error, K0Error } from '../errors';
import type { ChannelHit } from '../search/bm25';
import { DEFAULT_FUSION, fuse, indexGraph, type FusionOptions } from '../search/fusion';
import { relevanceFloor } from '../search/floor';
import type { VectorChannel } from '../search/types';
import { DEFAULT_PASSAGES, VectorStore, type PassageOptions } from '../search/vector';
import { embedWithinBudget, type CatchUpOptions, type CatchUpReport, type EmbedTexts } from './budget';
import { ModelLoader, stillLoadingWarning } from './modelLoader';

/** Anything that turns texts into vectors of the store's model: the worker in the product, an engine in benches. */
export interface Embedder {
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; cut?: boolean[] }>;
}

/** How one catch-up runs: its clock start, and (for a background fill) when to give way and how long a batch may be. */
export type CatchUpCall = Pick<CatchUpOptions, 'since' | 'yieldTo' | 'batchMs'>;

export interface VectorChannelHandle extends VectorChannel {
  readonly store: VectorStore;
  readonly modelId: string;
  /**
   * Embeds pending passages for at most `budgetMs` counted from `since` (performance.now() scale; default now: a
   * caller that loaded the model first passes when it started, so the load counts); returns how many were embedded.
   */
  catchUp(budgetMs?: number, opts?: CatchUpCall): Promise<number>;
  /** How the last catch-up went (batches, overrun, oversized and skipped passages). */
  readonly lastCatchUp: CatchUpReport | undefined;
  /** Passages embedded from their beginning only because they are longer than the model reads, this session. */
  readonly oversized: number;
  dispose(): Promise<void>;
}

export function createVectorChannel(opts: {
  index: IndexDb;
  embedder: Embedder;
  modelId: string;
  dimension: number;
  fusion?: FusionOptions;
  passages?: PassageOptions;
  dispose?: () => Promise<void>;
}): VectorChannelHandle {
  const store = new VectorStore(opts.index, opts.modelId, opts.dimension, opts.passages ?? DEFAULT_PASSAGES);
  // What the refresh after the batches costs, kept back from the budget: puts make vectors searchable at once, so
  // that refresh only reads two rows unless the scanner ran meanwhile (the last one measured is used after that).
  let refreshMs = 0;
  let msPerPassage: number | undefined;
  const graph = indexGraph(opts.index);
  const fusion = opts.fusion ?? DEFAULT_FUSION;
  const embedTexts: EmbedTexts = (texts) => opts.embedder.embed(texts);
  // Passages the model failed on alone are not retried for the life of this channel (they stay counted as pending).
  const skip = new Set<string>();
  let last: CatchUpReport | undefined;
  let oversized = 0;
  return {
    store,
    modelId: opts.modelId,
    async search(query: string, pool: number): Promise<ChannelHit[]> {
      const { vectors } = await opts.embedder.embed([query]);
      return store.search(vectors[0], pool);
    },
    pending: () => store.pending(),
    coverage: () => store.size,
    floor: relevanceFloor(opts.modelId),
    fuse: (lexical, vector) => fuse(lexical, vector, fusion, graph),
    async catchUp(budgetMs?: number, call: CatchUpCall = {}): Promise<number> {
      last = await embedWithinBudget(store, embedTexts, { budgetMs, ...call, skip, initialMsPerPassage: msPerPassage, reserveMs: refreshMs, starvedBefore: last?.starved });
      oversized += last.oversized;
      if (last.batches) msPerPassage = last.msPerPassage;
      if (last.embedded) refreshMs = last.refreshMs;
      return last.embedded;
    },
    get lastCatchUp() {
      return last;
    },
    get oversized() {
      return oversized;
    },
    dispose: async () => opts.dispose?.(),
  };
}

export interface OpenVectorsOptions {
  /** Model id or folder; $K0MARU_MODEL or the bundled model when absent. */
  model?: string;
  env?: NodeJS.ProcessEnv;
  /** Time the call may spend loading the model and embedding missing passages before answering (CLI). */
  budgetMs?: number;
  threads?: number;
  fusion?: FusionOptions;
}

/**
 * The vector channel for a one-shot host (the CLI): starts the embedding worker and embeds what is missing, all
 * within one time budget counted from this call. When the model is not loaded by then, the worker is stopped
 * mid-load (the command answers with BM25 and exits at once instead of waiting for a load nobody will use) and a
 * warning comes back instead of a channel; the same when the model cannot be used at all.
 */
export async function openVectorChannel(index: IndexDb, opts: OpenVectorsOptions = {}): Promise<{ channel?: VectorChannelHandle; warning?: string }> {
  const since = performance.now();
  const budgetMs = opts.budgetMs ?? 3000;
  const loader = new ModelLoader({ model: opts.model, env: opts.env, threads: opts.threads ?? 2 });
  try {
    const model = await loader.within(since + budgetMs);
    if (!model) {
      const warning = stillLoadingWarning(loader, false);
      await loader.dispose();
      return { warning };
    }
    const channel = createVectorChannel({ index, embedder: model.worker, modelId: model.config.id, dimension: model.config.dimension, fusion: opts.fusion, dispose: () => loader.dispose() });
    await channel.catchUp(budgetMs, { since });
    return { channel };
  } catch (err) {
    await loader.dispose();
    if (isK0Error(err) && err.code === 'MODEL_UNAVAILABLE') return { warning: `${err.message}: answered with BM25 only` };
    throw isK0Error(err) ? err : new K0Error('INTERNAL', (err as Error).message);
  }
}
