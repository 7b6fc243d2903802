import type { IndexDb } from '../index/db';
import { isK0Error } from '../errors';
import { throwIfCancelled } from '../host/cancel';
import { DEFAULT_FUSION, type FusionOptions } from '../search/fusion';
import type { VectorCoverage } from '../search/types';
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
  /** Each step embeds for at most this long before the fill re-reads the index (the scanner may have run). */
  stepMs: number;
  /**
   * Each inference request of the fill is sized to take about this long (default 40 ms). A caller that needs the
   * worker makes the fill stop before its next batch, so it waits for at most the batch in flight.
   */
  batchMs?: number;
  /** Called once the whole vault has vectors (the host tells its views / pages to ask again). */
  onCovered(): void;
  /** Called after every step of the fill, and once more when it stops: what the status bar / header shows. */
  onProgress?(p: EmbeddingProgress): void;
  log?(level: 'info' | 'warn', message: string): void;
}

/** How far this session's vectors cover the vault, from what its store holds in memory (no query runs). */
export interface EmbeddingProgress {
  /** Passages with a vector / all passages (the figures recall reports as `coverage`). */
  embedded: number;
  passages: number;
  /** True while a background fill runs (or waits for the model). */
  filling: boolean;
}

/** A fill stops for good after this many worker crashes in a row (a model that kills its worker every time). */
const MAX_FILL_CRASHES = 3;
const DEFAULT_BATCH_MS = 40;

type StepOutcome = 'more' | 'covered' | 'crashed' | 'stopped';

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
  /** Callers queued for the worker, and recalls between their prepare and their answer: the fill gives way to both. */
  private waiting = 0;
  private active = 0;
  private resumers: (() => void)[] = [];

  constructor(
    private readonly index: IndexDb,
    private readonly opts: VectorSessionOptions = {},
  ) {
    this.loader = new ModelLoader({ model: opts.model, env: opts.env, threads: opts.threads ?? 1 });
  }

  /**
   * The channel for one call, within `budgetMs` counted from now. `signal`: a caller that gave up while waiting
   * for the model or behind another catch-up stops with CANCELLED and never starts its own. `embed: false` (a host
   * whose background fill embeds): the call spends its budget only on waiting for the model, and answers from the
   * vectors there are, which its coverage reports.
   */
  async prepare(budgetMs = 1000, signal?: AbortSignal, opts: { embed?: boolean } = {}): Promise<VectorPreparation> {
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
    this.waiting++;
    let queued = true;
    const dequeue = () => {
      if (!queued) return;
      queued = false;
      this.waiting--;
    };
    return this.enqueue(() => {
      dequeue();
      throwIfCancelled(signal, 'embedding');
      return this.catchUpNow(since, opts.embed === false ? 0 : budgetMs);
    }).finally(() => {
      dequeue();
      this.resume();
    });
  }

  /**
   * Keeps the background fill off the worker until the returned function is called: a recall holds it from its
   * prepare to its answer, so its query embedding never queues behind a fill batch.
   */
  hold(): () => void {
    this.active++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.active--;
      this.resume();
    };
  }

  /** Coverage of the vault by this session's vectors; undefined before the channel exists (no model loaded yet). */
  progress(): EmbeddingProgress | undefined {
    const c = this.channel?.coverage?.();
    return c ? { embedded: c.embedded, passages: c.passages, filling: this.filling } : undefined;
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
   * For long-lived hosts (MCP server, `k0maru ui`, the editor): while passages wait for vectors, embed them in the
   * worker thread — after the model load, in short batches, giving way to every caller that needs the worker —
   * until the vault is covered, then say so. A budget per recall would leave a big vault half covered until
   * someone had searched a few hundred times. A crashed worker reloads and the fill resumes (a model that crashes
   * it every time stops the fill after a few tries; the next call starts it again). Idempotent while a fill runs;
   * stops with dispose().
   */
  fillInBackground(opts: BackgroundFill): void {
    if (this.filling || this.disposed) return;
    this.filling = true;
    this.runFill(opts)
      .catch((err: unknown) => opts.log?.('warn', `background embedding stopped: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        this.filling = false;
        const p = this.progress();
        if (p && !this.disposed) opts.onProgress?.(p);
      });
  }

  private async runFill(opts: BackgroundFill): Promise<void> {
    let announced = false;
    for (let crashes = 0; crashes < MAX_FILL_CRASHES && !this.disposed; ) {
      // The model: loaded, or loading for the recall that started it; a load that fails ends the fill.
      if (!this.loader.ready && !(await this.warmUp())) return;
      await this.turn();
      if (this.disposed) return;
      if (!this.channel) await this.enqueue(() => this.catchUpNow(performance.now(), 0)); // builds the channel
      const pending = this.channel?.pending() ?? 0;
      if (!this.channel || pending === 0) return;
      if (!announced) opts.log?.('info', `embedding ${pending} passage(s) in the background`);
      announced = true;
      const outcome = await this.enqueue(() => this.fillStep(opts));
      const p = this.progress();
      if (p) opts.onProgress?.(p);
      if (outcome === 'covered') {
        // The next process (a one-shot recall, a restarted server) reads the covered store from one file.
        this.channel?.store.saveSnapshot();
        opts.log?.('info', 'every passage has its vector: hybrid recall covers the whole vault');
        opts.onCovered();
        return;
      }
      if (outcome === 'stopped') return;
      crashes = outcome === 'crashed' ? crashes + 1 : 0;
      if (outcome === 'crashed') opts.log?.('warn', 'the embedding worker crashed during the background fill: it restarts and the fill resumes');
    }
  }

  /** One step of the fill (inside the queue): re-read the index, embed for up to stepMs in short batches. */
  private async fillStep(opts: BackgroundFill): Promise<StepOutcome> {
    const channel = this.channel;
    if (this.disposed || !channel) return 'stopped';
    if (!this.loader.ready) return 'crashed'; // died after the last step: reload first
    try {
      channel.store.refresh();
      if (channel.pending() === 0) return 'covered';
      const yieldTo = () => this.disposed || this.waiting > 0 || this.active > 0;
      const embedded = await channel.catchUp(opts.stepMs, { yieldTo, batchMs: opts.batchMs ?? DEFAULT_BATCH_MS });
      if (channel.pending() === 0) return 'covered';
      // Nothing left that the model can embed (the rest failed alone and is skipped for this session).
      if (embedded === 0 && channel.lastCatchUp?.stoppedBy === 'done') return 'stopped';
      return 'more';
    } catch (err) {
      if (!isK0Error(err) || err.code !== 'MODEL_UNAVAILABLE') throw err;
      if (err.data?.reason === 'worker-crashed' && !this.disposed) return 'crashed';
      return 'stopped';
    }
  }

  /** Resolves once no caller waits for the worker or holds it (and after one turn of the event loop). */
  private turn(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.disposed || (this.waiting === 0 && this.active === 0)) setTimeout(resolve, 5).unref();
        else this.resumers.push(check);
      };
      check();
    });
  }

  private resume(): void {
    if (this.waiting > 0 || this.active > 0) return;
    const r = this.resumers;
    this.resumers = [];
    for (const f of r) f();
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn);
    this.queue = next.catch(() => {});
    return next;
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
        // Read from the snapshot beside the index when it is current: a server's first hybrid call at 5,000 notes
        // would otherwise split, hash and read every passage and vector first.
        this.channel = createVectorChannel({ index: this.index, embedder: model.worker, modelId: model.config.id, dimension: model.config.dimension, fusion, snapshot: true });
      } else {
        this.channel.store.refresh();
      }
      if (budgetMs > 0) await this.channel.catchUp(budgetMs, { since });
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
    this.resume();
    for (const f of this.resumers.splice(0)) f();
    // Stops a load under way as well: a host that closes never waits for a model it no longer needs.
    const stopped = this.loader.dispose();
    await this.queue; // the step in flight (one batch; it ends early once the worker is gone)
    await stopped;
  }
}
