import type { IndexDb } from '../index/db';
import { isK0Error } from '../errors';
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
export class VectorSession {
  private worker: EmbedWorker | undefined;
  private channel: VectorChannelHandle | undefined;

  constructor(
    private readonly index: IndexDb,
    private readonly opts: VectorSessionOptions = {},
  ) {}

  async prepare(budgetMs = 1000): Promise<{ channel?: VectorChannelHandle; warning?: string }> {
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
      await this.channel.catchUp(budgetMs);
      return { channel: this.channel };
    } catch (err) {
      if (!isK0Error(err) || err.code !== 'MODEL_UNAVAILABLE') throw err;
      // A crash while catching up: the worker restarts on the next request, the channel stays usable.
      if (err.data?.reason === 'worker-crashed' && this.channel) return { channel: this.channel, warning: err.message };
      // The model cannot be used: answer with BM25 now, try the model again on the next call.
      await this.dispose();
      return { warning: `${err.message}: answered with BM25 only` };
    }
  }

  async dispose(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.channel = undefined;
    await w?.dispose();
  }
}
