// Entry of the embedding worker thread (bundled to dist/embedWorker.js). Both onnxruntimes (native and WASM,
// see runtime.ts) compute on the thread that calls them; keeping them here keeps the host's event loop free
// while a vault embeds.
import { existsSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { isK0Error } from '../errors';
import { EmbeddingEngine } from './engine';
import type { WorkerInit, WorkerReply, WorkerRequest } from './protocol';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('worker.ts must run in a worker thread');
  const init = workerData as WorkerInit;
  const send = (msg: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);
  let engine: EmbeddingEngine;
  try {
    if (init.holdLoadUntil) await untilExists(init.holdLoadUntil);
    engine = await EmbeddingEngine.load(init.modelDir, { threads: init.threads, wasmDir: init.wasmDir, batchSize: init.batchSize, spinning: init.spinning, runtime: init.runtime });
    // The first inference on a fresh session costs several times a later one (0.35–1.4 s measured here: the WASM
    // kernels compile on first use). Paid now, inside the load the host already counts against its budget, so
    // "ready" means a query is answered at its normal cost.
    await engine.embed(['warm up the embedding model']);
  } catch (err) {
    send({ type: 'initError', code: isK0Error(err) ? err.code : 'MODEL_UNAVAILABLE', message: (err as Error).message });
    return;
  }
  send({ type: 'ready', config: engine.config, runtime: engine.runtime, fallbackReason: engine.fallbackReason });
  // Requests are handled one at a time: the runtime is single-session and the host batches anyway.
  let queue = Promise.resolve();
  port.on('message', (req: WorkerRequest) => {
    if (req.type === 'crash') process.exit(70); // immediately, not after queued work
    queue = queue.then(() => handle(engine, req, send));
  });
}

async function handle(engine: EmbeddingEngine, req: WorkerRequest, send: (m: WorkerReply, t?: ArrayBuffer[]) => void): Promise<void> {
  try {
    if (req.type === 'tokenize') {
      send({ type: 'tokens', id: req.id, ids: engine.tokenize(req.text) });
      return;
    }
    if (req.type !== 'embed') return;
    const { vectors, truncated, cut } = await engine.embed(req.texts);
    const dim = engine.config.dimension;
    const flat = new Float32Array(vectors.length * dim);
    vectors.forEach((v, i) => flat.set(v, i * dim));
    send({ type: 'embedded', id: req.id, buffer: flat.buffer, dimension: dim, truncated, cut }, [flat.buffer]);
  } catch (err) {
    send({ type: 'error', id: req.id, code: isK0Error(err) ? err.code : 'INTERNAL', message: (err as Error).message ?? String(err) });
  }
}

void main();

/** The test hook's wait (see WorkerInit.holdLoadUntil): polls, since the file may appear in a folder not yet watched. */
function untilExists(file: string): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (existsSync(file) ? resolve() : setTimeout(tick, 20));
    tick();
  });
}
