import type { Worker } from 'node:worker_threads';
import { startWorkerThread, workerScriptPath } from '../host/workerThread';
import { K0Error, type ErrorCode, ERROR_CODES } from '../errors';
import type { ModelConfig } from './modelConfig';
import type { WorkerInit, WorkerReply, WorkerRequest } from './protocol';
import type { RuntimeName } from './runtime';

export interface EmbedWorkerOptions extends WorkerInit {
  /** Path of the worker script; found beside the bundle (embedWorker.js) or in the sources when absent. */
  script?: string;
}

type Pending = { resolve: (reply: WorkerReply) => void; reject: (err: K0Error) => void };
type RequestBody = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

function workerScript(): string {
  const file = workerScriptPath(__dirname, 'embedWorker.js', 'worker.ts');
  if (!file) throw new K0Error('MODEL_UNAVAILABLE', `embedding worker script not found beside ${__dirname}`);
  return file;
}

/** Why native fell back to WASM is said once per process (every worker restart would repeat it otherwise). */
let fallbackSaid = false;
function sayFallbackOnce(reason: string): void {
  if (fallbackSaid) return;
  fallbackSaid = true;
  process.emitWarning(`embedding runs on onnxruntime-web (WASM), slower: ${reason}`, { code: 'K0MARU_EMBED_RUNTIME' });
}

const asCode = (code: string): ErrorCode => ((ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : 'INTERNAL');

/**
 * Host side of the embedding worker thread. The worker starts on first use; if it dies, every request in
 * flight fails with MODEL_UNAVAILABLE (reason worker-crashed) and the next request starts a fresh worker,
 * so recall can answer with BM25 meanwhile and say why.
 */
export class EmbedWorker {
  private worker: Worker | undefined;
  private starting: Promise<ModelConfig> | undefined;
  /** Rejects `starting` when dispose() stops a worker that is still loading (its exit is ignored then). */
  private abandonStart: ((err: K0Error) => void) | undefined;
  private loaded = false;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  /** How many times a worker died under us (shown by status and benches). */
  crashes = 0;
  /** The runtime of the loaded worker (undefined before the first load). */
  runtime: RuntimeName | undefined;
  /** Why native was wanted but WASM runs, when that happened. */
  fallbackReason: string | undefined;

  constructor(private readonly opts: EmbedWorkerOptions) {}

  /** Starts the worker (if needed) and resolves with the model's config once it is loaded. */
  start(): Promise<ModelConfig> {
    if (this.starting) return this.starting;
    const { script, ...init } = this.opts;
    const file = script ?? workerScript();
    const worker = startWorkerThread(file, init satisfies WorkerInit);
    this.worker = worker;
    this.loaded = false;
    this.starting = new Promise<ModelConfig>((resolve, reject) => {
      let ready = false;
      this.abandonStart = reject;
      worker.on('message', (msg: WorkerReply) => {
        if (msg.type === 'ready') {
          ready = true;
          this.abandonStart = undefined;
          if (this.worker === worker) this.loaded = true;
          this.runtime = msg.runtime;
          this.fallbackReason = msg.fallbackReason;
          if (msg.fallbackReason) sayFallbackOnce(msg.fallbackReason);
          resolve(msg.config);
        } else if (msg.type === 'initError') {
          this.reset(worker);
          void worker.terminate();
          reject(new K0Error(asCode(msg.code), msg.message, { dir: init.modelDir }));
        } else {
          const p = this.pending.get(msg.id);
          this.pending.delete(msg.id);
          p?.resolve(msg);
        }
      });
      const died = (why: string) => {
        if (this.worker !== worker) return; // already replaced or disposed
        this.reset(worker);
        const err = new K0Error('MODEL_UNAVAILABLE', `embedding worker ${why}; it restarts on the next request`, { reason: 'worker-crashed' });
        if (!ready) reject(err);
        else this.crashes++;
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
      };
      worker.on('error', (e) => died(`failed: ${e.message}`));
      worker.on('exit', (code) => died(`exited with code ${code}`));
    });
    return this.starting;
  }

  private reset(worker: Worker): void {
    if (this.worker === worker) {
      this.worker = undefined;
      this.starting = undefined;
      this.abandonStart = undefined;
      this.loaded = false;
    }
  }

  /** The model is loaded (and warmed up) in a running worker: a request now is answered without a load first. */
  get ready(): boolean {
    return this.loaded && this.worker !== undefined;
  }

  private async request(body: RequestBody): Promise<WorkerReply> {
    await this.start();
    const worker = this.worker;
    if (!worker) throw new K0Error('MODEL_UNAVAILABLE', 'embedding worker is not running', { reason: 'worker-crashed' });
    const id = this.nextId++;
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...body, id } as WorkerRequest);
    });
    if (reply.type === 'error') throw new K0Error(asCode(reply.code), reply.message);
    return reply;
  }

  async embed(texts: string[]): Promise<{ vectors: Float32Array[]; truncated: number[]; cut: boolean[] }> {
    if (texts.length === 0) return { vectors: [], truncated: [], cut: [] };
    const reply = await this.request({ type: 'embed', texts });
    if (reply.type !== 'embedded') throw new K0Error('INTERNAL', `unexpected worker reply ${reply.type}`);
    const flat = new Float32Array(reply.buffer);
    const vectors = texts.map((_, i) => flat.subarray(i * reply.dimension, (i + 1) * reply.dimension));
    return { vectors, truncated: reply.truncated, cut: reply.cut };
  }

  async tokenize(text: string): Promise<number[]> {
    const reply = await this.request({ type: 'tokenize', text });
    if (reply.type !== 'tokens') throw new K0Error('INTERNAL', `unexpected worker reply ${reply.type}`);
    return reply.ids;
  }

  /** Test hook: kills the worker the way a WASM abort would. */
  async crashForTest(): Promise<void> {
    await this.request({ type: 'crash' }).catch(() => undefined);
  }

  async dispose(): Promise<void> {
    const w = this.worker;
    const abandon = this.abandonStart;
    // Replies still owed by the worker: a load under way counts as one (its ready/initError).
    const owed = this.pending.size + (abandon ? 1 : 0);
    this.worker = undefined;
    this.starting = undefined;
    this.abandonStart = undefined;
    this.loaded = false;
    const err = new K0Error('MODEL_UNAVAILABLE', 'embedding worker was stopped', { reason: 'disposed' });
    // A load still under way ends here too: whoever waits for it gets the error instead of waiting forever.
    abandon?.(err);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    if (!w) return;
    // onnxruntime-node aborts the whole process (SIGABRT) when its thread is terminated inside a native
    // session.create/run: let what the worker is computing finish first (a fill batch is ~40 ms), within a bound.
    if (owed > 0 && this.runtime !== 'wasm') await settled(w, owed, DRAIN_BOUND_MS);
    await w.terminate();
  }
}

/** How long dispose() waits for the worker's computations in flight before it terminates the thread anyway. */
const DRAIN_BOUND_MS = 10_000;

/** Resolves once the worker has sent `replies` more messages, exited, or `boundMs` passed. */
function settled(worker: Worker, replies: number, boundMs: number): Promise<void> {
  return new Promise((resolve) => {
    let left = replies;
    const done = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', done);
      resolve();
    };
    const onMessage = () => {
      if (--left <= 0) done();
    };
    const timer = setTimeout(done, boundMs);
    worker.on('message', onMessage);
    worker.on('exit', done);
  });
}
