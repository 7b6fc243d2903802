import { setFlagsFromString } from 'node:v8';
import type { IndexDb } from '../index/db';
import { quickWasmStart } from '../index/wasmTier';
import { isK0Error, K0Error } from '../errors';
import type { ChannelHit } from '../search/bm25';
import { DEFAULT_FUSION, fuse, indexGraph, type FusionOptions } from '../search/fusion';
import { relevanceFloor } from '../search/floor';
import type { VectorChannel } from '../search/types';
import { DEFAULT_PASSAGES, VectorStore, type PassageOptions } from '../search/vector';
import { embedWithinBudget, type CatchUpOptions, type CatchUpReport, type EmbedTexts } from './budget';
import { defaultModelsRoot } from './install';
import { readModelFolder, type ModelConfig } from './modelConfig';
import { ModelLoader, nativeRuntimeHere, stillLoadingWarning } from './modelLoader';
import { resolveModelDir } from './modelLocation';

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
  /** Read the store from its snapshot file when the index vouches for it (store.saveSnapshot() writes it). */
  snapshot?: boolean;
  dispose?: () => Promise<void>;
}): VectorChannelHandle {
  const store = new VectorStore(opts.index, opts.modelId, opts.dimension, opts.passages ?? DEFAULT_PASSAGES, { snapshot: opts.snapshot });
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
  /** How long the call may wait for the model to load (it embeds only the query: the fill is `scan --embed`'s job). */
  budgetMs?: number;
  threads?: number;
  fusion?: FusionOptions;
}

/**
 * The vector channel for a one-shot host (the CLI), cheap enough that hybrid costs little more than BM25:
 * - it embeds nothing but the query: vectors are filled by `k0maru scan --embed` and the long-lived hosts' fill, so
 *   with vectors incomplete it answers at once from those there are (the warning says how many are missing);
 * - with no vector of this model at all it does not start the worker: BM25 answers and the warning says how to fill;
 * - the model loads in its worker thread while this thread reads the store (chunks and vectors), so the two overlap;
 * - the budget bounds only the wait for the model: past it, the worker is stopped mid-load (the command answers
 *   with BM25 and exits at once instead of waiting for a load nobody will use).
 */
export interface OpenedVectors {
  channel?: VectorChannelHandle;
  warning?: string;
  /**
   * Call once the answer is out: writes the store's snapshot if this process had to read the store from the index
   * (so the next one-shot reads one file), and stops the model. Safe to call when there is no channel.
   */
  finish(): Promise<void>;
}

export async function openVectorChannel(index: IndexDb, opts: OpenVectorsOptions = {}): Promise<OpenedVectors> {
  const since = performance.now();
  const budgetMs = opts.budgetMs ?? 3000;
  const env = opts.env ?? process.env;
  let config: ModelConfig;
  try {
    // The model's id and dimension come from its folder: enough to read the store before the model is loaded.
    config = readModelFolder(resolveModelDir(opts.model, defaultModelsRoot(env), env)).config;
  } catch (err) {
    if (isK0Error(err) && err.code === 'MODEL_UNAVAILABLE') return { warning: `${err.message}: answered with BM25 only`, finish: nothing };
    throw err;
  }
  if (!hasVectors(index, config.id)) return { warning: `no passage has a vector of ${config.id} yet (k0maru scan --embed fills them): answered with BM25 only`, finish: nothing };
  // One ORT thread: the only inference is the query (a second thread is another WASM instance to start). On the
  // native runtime the model runs on this thread (no worker to start: ModelLoader's InThreadModel).
  const loader = new ModelLoader({ model: opts.model, env: opts.env, threads: opts.threads ?? 1, inThread: true });
  // A process that opted into a quick WASM start (the CLI) compiles the 14 MB runtime without TurboFan tier-up
  // too: it runs one inference, and the tier-up cost ~0.8 s CPU of a ~2 s load here (V8 flags are per process, so
  // the worker thread's compile sees it; set back once the model is loaded).
  // (Only for the WASM worker: on the native runtime nothing but the search kernel compiles meanwhile, and it
  // should run at full speed.)
  const quick = quickWasmStart() && !nativeRuntimeHere(env);
  if (quick) setFlagsFromString('--liftoff-only');
  const loading = loader.load();
  loading.catch(() => {}).finally(() => quick && setFlagsFromString('--no-liftoff-only'));
  try {
    const embedder: Embedder = { embed: async (texts) => (await loading).worker.embed(texts) };
    // The store is read from its snapshot file when the index vouches for it, else from the index (and the snapshot
    // is written by finish(), after the answer).
    const channel = createVectorChannel({ index, embedder, modelId: config.id, dimension: config.dimension, fusion: opts.fusion, snapshot: true, dispose: () => loader.dispose() });
    const finish = async () => {
      channel.store.saveSnapshot();
      await loader.dispose();
    };
    const model = await loader.within(since + budgetMs);
    if (!model) {
      const warning = stillLoadingWarning(loader, false);
      await loader.dispose();
      return { warning, finish };
    }
    if (model.config.id !== config.id || model.config.dimension !== config.dimension) throw new K0Error('MODEL_UNAVAILABLE', `the model folder changed while loading (${config.id} → ${model.config.id})`);
    const pending = channel.pending();
    if (!pending) return { channel, finish };
    const { embedded, passages } = channel.store.size;
    return { channel, finish, warning: `${passages - embedded} of ${passages} passage(s) have no vector yet (k0maru scan --embed fills them): answered from the ${embedded} that do` };
  } catch (err) {
    await loader.dispose();
    if (isK0Error(err) && err.code === 'MODEL_UNAVAILABLE') return { warning: `${err.message}: answered with BM25 only`, finish: nothing };
    throw isK0Error(err) ? err : new K0Error('INTERNAL', (err as Error).message);
  }
}

const nothing = async (): Promise<void> => {};

/** Whether any vector of this model is stored (one indexed probe; the table may not exist yet). */
function hasVectors(index: IndexDb, modelId: string): boolean {
  try {
    return !!index.get('SELECT 1 AS x FROM vectors WHERE model = ? LIMIT 1', [modelId]);
  } catch (err) {
    if (/no such table/i.test(String((err as Error).message))) return false;
    throw err;
  }
}
