import type { IndexDb } from '../index/db';
import { isK0Error } from '../errors';
import { throwIfCancelled } from '../host/cancel';
import { DEFAULT_FUSION, type FusionOptions } from '../search/fusion';
import { createVectorChannel, type VectorChannelHandle } from './channel';
import { EmbedWorker } from './embedWorker';
import { defaultModelsRoot } from './install';
import { readModelFolder } from './modelConfig';
import { resolveModelDir } from './modelLocation';

export interface VectorSessionOptions {
  model?: string;
  env?: NodeJS.ProcessEnv;
  /** ORT threads in the worker. A host with its own latency budget (the editor) should keep a core free: 1. */
  threads?: number;
  fusion?: FusionOptions;
}

/**
 * The vector channel for a long-lived host (MCP server, editor): one worker for the host's lifetime, started on
 * the first hybrid recall. Each `prepare()` re-reads the chunks (the scanner may have changed them), embeds what
 * is missing within the caller's budget and returns the channel — or a warning when the model cannot be used,
 * so the caller answers with BM25. A crashed worker is replaced on the next call.
 */
export interface BackgroundFill {
  /** Each step embeds for at most this long: a recall queued behind a step waits at most this much. */
  stepMs: number;
  /** Called once the whole vault has vectors (the host tells its views / pages to ask again). */
  onCovered(): void;
  log?(level: 'info' | 'warn', message: string): void;
}

export class VectorSession {
  private worker: EmbedWorker | undefined;
  private channel: VectorChannelHandle | undefined;
  /** Every prepare runs after the one before: two catch-ups never embed the same passages at once. */
  private queue: Promise<unknown> = Promise.resolve();
  private filling = false;
  private disposed = false;

  constructor(
    private readonly index: IndexDb,
    private readonly opts: VectorSessionOptions = {},
  ) {}

  /** `signal`: a caller that gave up while queued behind another prepare never starts its catch-up. */
  prepare(budgetMs = 1000, signal?: AbortSignal): Promise<{ channel?: VectorChannelHandle; warning?: string }> {
    const next = this.queue.then(() => {
      throwIfCancelled(signal, 'embedding');
      return this.prepareNow(budgetMs);
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * For hosts a person looks at (the console, the editor): when passages are still waiting for vectors, keep
   * embedding them in short steps — in the worker thread, queued between the callers' own prepares — until the
   * vault is covered, then say so. A one-shot budget per recall would leave a big vault half covered until
   * someone had searched a few hundred times. Idempotent while a fill runs; stops with dispose().
   */
  fillInBackground(opts: BackgroundFill): void {
    const pending = this.channel?.pending() ?? 0;
    if (this.filling || this.disposed || pending === 0) return;
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

  private async prepareNow(budgetMs: number): Promise<{ channel?: VectorChannelHandle; warning?: string }> {
    if (this.disposed) return { warning: 'the embedding session was closed: answered with BM25 only' };
    const since = performance.now(); // the model load below counts against the budget
    try {
      if (!this.channel) {
        const env = this.opts.env ?? process.env;
        const dir = resolveModelDir(this.opts.model, defaultModelsRoot(env), env);
        const { config } = readModelFolder(dir);
        this.worker = new EmbedWorker({ modelDir: dir, threads: this.opts.threads ?? 1 });
        await this.worker.start();
        this.channel = createVectorChannel({ index: this.index, embedder: this.worker, modelId: config.id, dimension: config.dimension, fusion: this.opts.fusion ?? DEFAULT_FUSION });
      } else {
        this.channel.store.refresh();
      }
      await this.channel.catchUp(budgetMs, { since });
      return { channel: this.channel };
    } catch (err) {
      if (!isK0Error(err) || err.code !== 'MODEL_UNAVAILABLE') throw err;
      // A crash while catching up: the worker restarts on the next request, the channel stays usable.
      if (err.data?.reason === 'worker-crashed' && this.channel) return { channel: this.channel, warning: err.message };
      // The model cannot be used: answer with BM25 now, try the model again on the next call.
      await this.closeWorker();
      return { warning: `${err.message}: answered with BM25 only` };
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.queue; // the step in flight (at most one budget long)
    await this.closeWorker();
  }

  private async closeWorker(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.channel = undefined;
    await w?.dispose();
  }
}
