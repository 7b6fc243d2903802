import type { IndexDb } from '../index/db';
import { isK0Error } from '../errors';
import { throwIfCancelled } from '../host/cancel';
import { DEFAULT_FUSION, type FusionOptions } from '../search/fusion';
import { createVectorChannel, type VectorChannelHandle } from './channel';
import { ModelLoader, stillLoadingWarning } from './modelLoader';

export interface VectorPreparation {
  channel?: VectorChannelHandle;
  warning?: string;
}

const closed = (): VectorPreparation => ({ warning: 'the embedding session was closed: answered with BM25 only' });

export interface VectorSessionOptions {
  model?: string;
  env?: NodeJS.ProcessEnv;
  /** ORT threads in the worker. A host with its own latency budget (the editor) should keep a core free: 1. */
  threads?: number;
  fusion?: FusionOptions;
}

export interface BackgroundFill {
  /** Each step embeds for at most this long: a recall queued behind a step waits at most this much. */
  stepMs: number;
  /** Called once the whole vault has vectors (the host tells its views / pages to ask again). */
  onCovered(): void;
  log?(level: 'info' | 'warn', message: string): void;
}

/**
 * The vector channel for a long-lived host (MCP server, editor): one worker for the host's lifetime, whose model
 * load starts on the first hybrid recall and runs in the background (ModelLoader). Each `prepare()` has one budget
 * for everything before the answer: waiting for the load, waiting behind another catch-up, re-reading the chunks
 * (the scanner may have changed them) and embedding what is missing. When the model is not ready in time, or
 * cannot be used at all, it returns a warning instead of the channel and the caller answers with BM25; the load
 * goes on for the next call. A crashed worker reloads the same way.
 */
export class VectorSession {
  private readonly loader: ModelLoader;
  private channel: VectorChannelHandle | undefined;
  /** Every catch-up runs after the one before: two never embed the same passages at once. */
  private queue: Promise<unknown> = Promise.resolve();
  private filling = false;
  private disposed = false;

  constructor(
    private readonly index: IndexDb,
    private readonly opts: VectorSessionOptions = {},
  ) {
    this.loader = new ModelLoader({ model: opts.model, env: opts.env, threads: opts.threads ?? 1 });
  }

  /**
   * The channel for one call, within `budgetMs` counted from now. `signal`: a caller that gave up while waiting
   * for the model or behind another catch-up stops with CANCELLED and never starts its own.
   */
  async prepare(budgetMs = 1000, signal?: AbortSignal): Promise<VectorPreparation> {
    const since = performance.now();
    throwIfCancelled(signal, 'embedding');
    if (this.disposed) return closed();
    try {
      if (!(await this.loader.within(since + budgetMs, signal))) return { warning: stillLoadingWarning(this.loader, true) };
    } catch (err) {
      if (!isK0Error(err) || err.code !== 'MODEL_UNAVAILABLE') throw err;
      if (this.disposed) return closed();
      // The model cannot be used: answer with BM25 now, try the model again on the next call.
      return { warning: `${err.message}: answered with BM25 only` };
    }
    const next = this.queue.then(() => {
      throwIfCancelled(signal, 'embedding');
      return this.catchUpNow(since, budgetMs);
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * Starts the model load (if none runs and the model is not ready): a host may warm up before its first recall.
   * Nobody has to wait for it; the promise says whether the model is ready (false: it cannot be used now).
   */
  warmUp(): Promise<boolean> {
    if (this.disposed) return Promise.resolve(false);
    return this.loader.load().then(
      () => true,
      () => false,
    );
  }

  /**
   * For hosts a person looks at (the console, the editor): when passages are still waiting for vectors, keep
   * embedding them in short steps — in the worker thread, queued between the callers' own prepares — until the
   * vault is covered, then say so. A one-shot budget per recall would leave a big vault half covered until
   * someone had searched a few hundred times. Idempotent while a fill runs; stops with dispose().
   */
  fillInBackground(opts: BackgroundFill): void {
    if (this.filling || this.disposed) return;
    if (!this.channel) {
      // The model is still loading (the recall that started it answered with BM25): fill once it is ready.
      const loading = this.loader.pending;
      if (!loading) return;
      this.filling = true;
      loading
        .then(() => this.prepare(0)) // builds the channel; a zero budget embeds nothing
        .then(
          () => {
            this.filling = false;
            if (this.channel) this.fillInBackground(opts);
          },
          () => (this.filling = false),
        );
      return;
    }
    const pending = this.channel.pending();
    if (pending === 0) return;
    this.filling = true;
    opts.log?.('info', `embedding ${pending} passage(s) in the background`);
    const step = () => {
      this.prepare(opts.stepMs).then(
        (r) => {
          if (this.disposed) this.filling = false;
          else if (r.channel && r.channel.pending() > 0 && !r.warning) setTimeout(step, 10).unref();
          else {
            this.filling = false;
            if (r.channel && r.channel.pending() === 0) {
              opts.log?.('info', 'every passage has its vector: hybrid recall covers the whole vault');
              opts.onCovered();
            }
          }
        },
        (err: unknown) => {
          this.filling = false;
          opts.log?.('warn', `background embedding stopped: ${err instanceof Error ? err.message : String(err)}`);
        },
      );
    };
    setTimeout(step, 10).unref();
  }

  private async catchUpNow(since: number, budgetMs: number): Promise<VectorPreparation> {
    if (this.disposed) return closed();
    const model = this.loader.ready;
    if (!model) {
      // The worker died after this call found it ready (another call's catch-up crashed it): it reloads in the
      // background; searching now would make the query wait for that load.
      void this.warmUp();
      return { warning: stillLoadingWarning(this.loader, true) };
    }
    try {
      if (!this.channel) {
        const fusion = this.opts.fusion ?? DEFAULT_FUSION;
        this.channel = createVectorChannel({ index: this.index, embedder: model.worker, modelId: model.config.id, dimension: model.config.dimension, fusion });
      } else {
        this.channel.store.refresh();
      }
      await this.channel.catchUp(budgetMs, { since });
      return { channel: this.channel };
    } catch (err) {
      if (!isK0Error(err) || err.code !== 'MODEL_UNAVAILABLE') throw err;
      if (this.disposed) return closed();
      if (err.data?.reason === 'worker-crashed') {
        // The channel (its store) stays; the model reloads in the background, and BM25 answers this call.
        void this.warmUp();
        return { warning: `${err.message}: answered with BM25 only` };
      }
      // The model cannot be used: answer with BM25 now, try the model again on the next call.
      this.channel = undefined;
      await this.loader.reset();
      return { warning: `${err.message}: answered with BM25 only` };
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.channel = undefined;
    // Stops a load under way as well: a host that closes never waits for a model it no longer needs.
    const stopped = this.loader.dispose();
    await this.queue; // the step in flight (at most one budget long; it ends early once the worker is gone)
    await stopped;
  }
}
