import { existsSync } from 'node:fs';
import { K0Error } from '../errors';
import { cancelled } from '../host/cancel';
import { EmbedWorker } from './embedWorker';
import type { EmbeddingEngine } from './engine';
import { defaultModelsRoot } from './install';
import { readModelFolder, type ModelConfig } from './modelConfig';
import { resolveModelDir } from './modelLocation';
import { nativeBinaryDir, requestedRuntime } from './runtime';

export interface ModelLoaderOptions {
  /** Model id or folder; $K0MARU_MODEL or the bundled model when absent. */
  model?: string;
  env?: NodeJS.ProcessEnv;
  /** ORT threads in the worker. */
  threads?: number;
  /**
   * Run the model on this thread when the native runtime is here (a one-shot host that embeds only its query):
   * see InThreadModel. Elsewhere (WASM computes on the calling thread) the worker is used all the same.
   */
  inThread?: boolean;
}

/** What runs the model: the embedding worker, or (one-shot, native runtime) the engine on this thread. */
export interface ModelRunner {
  start(): Promise<ModelConfig>;
  readonly ready: boolean;
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; cut?: boolean[] }>;
  dispose(): Promise<void>;
}

export interface LoadedModel {
  worker: ModelRunner;
  config: ModelConfig;
}

const closedError = () => new K0Error('MODEL_UNAVAILABLE', 'the embedding session was closed', { reason: 'disposed' });

/**
 * The model on the calling thread, for a one-shot host on the native runtime. onnxruntime-node creates its session
 * and runs inference on its own threads (the event loop stays free: measured, no gap above 1.2 ms while a session
 * was created), so a worker thread buys a one-shot nothing and costs its start: a second Node environment whose
 * internal modules compile again (~150 ms CPU here) plus the 0.9 MB worker bundle and a warm-up inference —
 * about 0.45 s CPU of a 0.75 s one-shot hybrid recall at 500 notes. Not used on WASM, which computes on the
 * calling thread (session creation and inference would stall this one).
 */
class InThreadModel implements ModelRunner {
  private engine: EmbeddingEngine | undefined;
  private starting: Promise<ModelConfig> | undefined;
  private disposed = false;

  constructor(
    private readonly dir: string,
    private readonly threads: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  start(): Promise<ModelConfig> {
    this.starting ??= this.load();
    return this.starting;
  }

  private async load(): Promise<ModelConfig> {
    const hold = this.env.K0MARU_HOLD_MODEL_LOAD;
    if (hold) await untilExists(hold, () => this.disposed);
    if (this.disposed) throw closedError();
    const { EmbeddingEngine } = await import('./engine');
    if (this.disposed) throw closedError(); // a zero budget: no session is created for nobody
    let engine: EmbeddingEngine;
    try {
      engine = await EmbeddingEngine.load(this.dir, { threads: this.threads, runtime: requestedRuntime(this.env) });
    } catch (err) {
      throw err instanceof K0Error ? err : new K0Error('MODEL_UNAVAILABLE', `the embedding model did not load: ${(err as Error).message ?? err}`, { dir: this.dir });
    }
    if (this.disposed) {
      await engine.dispose();
      throw closedError();
    }
    this.engine = engine;
    return engine.config;
  }

  get ready(): boolean {
    return this.engine !== undefined;
  }

  async embed(texts: string[]): Promise<{ vectors: Float32Array[]; cut: boolean[] }> {
    if (texts.length === 0) return { vectors: [], cut: [] };
    await this.start();
    const engine = this.engine;
    if (!engine) throw closedError();
    const { vectors, cut } = await engine.embed(texts);
    return { vectors, cut };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const engine = this.engine;
    this.engine = undefined;
    if (engine) await engine.dispose();
    // A session still being created is released by load() once it exists (onnxruntime-node cannot cancel it).
    else await this.starting?.catch(() => undefined);
  }
}

/** The test hook's wait ($K0MARU_HOLD_MODEL_LOAD): polls for the file, and gives up once `stop()` says so. */
function untilExists(file: string, stop: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (stop() || existsSync(file) ? resolve() : setTimeout(tick, 20));
    tick();
  });
}

/** Whether this process would run the model on onnxruntime-node (its binary is here, nothing forces WASM). */
export function nativeRuntimeHere(env: NodeJS.ProcessEnv): boolean {
  try {
    return requestedRuntime(env) !== 'wasm' && nativeBinaryDir() !== undefined;
  } catch {
    return false; // a bad K0MARU_EMBED_RUNTIME: the worker reports it
  }
}

/**
 * Loading the model (worker start, ONNX session, warm-up inference) takes 1.5–3 s here, longer than a recall's whole
 * budget. So a recall never simply awaits it: the load starts in the background and each caller waits for it only
 * until its own deadline (`within`). A caller whose time runs out answers with BM25 and the load goes on, so the
 * next call of a long-lived host finds the model ready; a one-shot host disposes the loader, which stops the worker
 * even mid-load (nothing is left for the process to wait for on exit).
 */
export class ModelLoader {
  private worker: ModelRunner | undefined;
  private config: ModelConfig | undefined;
  private loading: Promise<LoadedModel> | undefined;
  private startedAt = 0;
  private disposed = false;

  constructor(private readonly opts: ModelLoaderOptions = {}) {}

  /** The model, when loaded in a running worker (a crashed worker is not ready: the next `load` restarts it). */
  get ready(): LoadedModel | undefined {
    return this.worker?.ready && this.config ? { worker: this.worker, config: this.config } : undefined;
  }

  /** A load under way (undefined when none runs). */
  get pending(): Promise<LoadedModel> | undefined {
    return this.loading;
  }

  /** How long the load under way has been running (ms; 0 when none runs). */
  get loadingForMs(): number {
    return this.loading ? performance.now() - this.startedAt : 0;
  }

  /**
   * Starts a load unless one runs or the model is ready; resolves once the model is loaded and warm. Rejects with
   * MODEL_UNAVAILABLE (no model, a broken one, a worker that died while loading); the next call tries again.
   */
  load(): Promise<LoadedModel> {
    const ready = this.ready;
    if (ready) return Promise.resolve(ready);
    if (this.loading) return this.loading;
    if (this.disposed) return Promise.reject(new K0Error('MODEL_UNAVAILABLE', 'the embedding session was closed', { reason: 'disposed' }));
    this.startedAt = performance.now();
    const run = this.start();
    this.loading = run;
    // Nobody may be waiting when a background load fails: the failure is kept for the next caller's own load.
    run.then(
      () => this.loading === run && (this.loading = undefined),
      () => this.loading === run && (this.loading = undefined),
    );
    return run;
  }

  private async start(): Promise<LoadedModel> {
    if (!this.worker) {
      const env = this.opts.env ?? process.env;
      const dir = resolveModelDir(this.opts.model, defaultModelsRoot(env), env);
      readModelFolder(dir); // a missing or invalid folder fails here, before a thread is spent on it
      const threads = this.opts.threads ?? 1;
      this.worker = this.opts.inThread && nativeRuntimeHere(env) ? new InThreadModel(dir, threads, env) : new EmbedWorker({ modelDir: dir, threads, holdLoadUntil: env.K0MARU_HOLD_MODEL_LOAD || undefined });
    }
    const worker = this.worker;
    try {
      const config = await worker.start();
      if (this.disposed || this.worker !== worker) throw new K0Error('MODEL_UNAVAILABLE', 'the embedding session was closed', { reason: 'disposed' });
      this.config = config;
      return { worker, config };
    } catch (err) {
      // A load that failed outright (no model, a broken one) leaves no worker behind; a crashed one restarts itself.
      if (this.worker === worker && (err as K0Error).data?.reason !== 'worker-crashed') {
        this.worker = undefined;
        await worker.dispose();
      }
      throw err;
    }
  }

  /**
   * The model if it is ready by `deadline` (performance.now() scale), starting its load if needed; undefined when the
   * deadline comes first (the load goes on). Rejects with the load's MODEL_UNAVAILABLE, or CANCELLED when `signal` fires.
   */
  async within(deadline: number, signal?: AbortSignal): Promise<LoadedModel | undefined> {
    if (signal?.aborted) throw cancelled('embedding');
    const load = this.load();
    const ready = this.ready;
    if (ready) return ready;
    const left = deadline - performance.now();
    if (left <= 0) {
      load.catch(() => {});
      return undefined;
    }
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        load,
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), left))),
        new Promise<never>((_, reject) => {
          onAbort = () => reject(cancelled('embedding'));
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      load.catch(() => {});
    }
  }

  /** Stops the worker, also mid-load (its waiters get MODEL_UNAVAILABLE, reason disposed); a later `load` starts afresh. */
  async reset(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.config = undefined;
    this.loading = undefined;
    await w?.dispose();
  }

  /** Stops the worker for good. Idempotent. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.reset();
  }
}

/** The warning a call answers with when the model was not loaded in time. */
export function stillLoadingWarning(loader: ModelLoader, background: boolean): string {
  const ms = Math.round(loader.loadingForMs);
  return background
    ? `the embedding model is still loading (${ms} ms so far; it goes on in the background for the next call): answered with BM25 only`
    : `the embedding model did not load within this call's budget (${ms} ms): answered with BM25 only`;
}
