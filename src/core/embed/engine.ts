import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as ort from 'onnxruntime-common';
import { K0Error } from '../errors';
import { readModelFolder, type ModelConfig } from './modelConfig';
import { requestedRuntime, selectRuntime, type OrtRuntime, type RuntimeChoice, type RuntimeName } from './runtime';
import { loadTokenizer, type TextTokenizer } from './tokenizer';

export interface EngineOptions {
  /** WASM threads inside onnxruntime (1 = run on the engine's own thread). */
  threads?: number;
  /** Folder holding ort-wasm-simd-threaded.{mjs,wasm}; found beside the bundle or in node_modules when absent. */
  wasmDir?: string;
  /** Texts per inference call (32 measured fastest: bench/embed.ts). Texts are sorted by length first, so a batch pads little. */
  batchSize?: number;
  /**
   * Let onnxruntime's pool threads spin while waiting for work (its default). Off by default here: on a
   * 2-core machine spinning threads take the CPU the host's event loop needs.
   */
  spinning?: boolean;
  /** native | wasm | auto (default: `K0MARU_EMBED_RUNTIME`, else auto = native where its binary is shipped and loads). */
  runtime?: RuntimeChoice;
}

export interface EmbedResult {
  vectors: Float32Array[];
  /** Per text: how many tokens were cut off by the model window (0 when the text fit). */
  truncated: number[];
  /** Per text: longer than the tokenizer reads (TextTokenizer.maxChars), so only its beginning was embedded. */
  cut: boolean[];
}

const WASM_FILE = 'ort-wasm-simd-threaded.wasm';

/** The onnxruntime WASM files: beside the bundled script in a package, else from node_modules. */
export function findWasmDir(): string {
  const candidates: string[] = [];
  if (typeof __dirname === 'string') candidates.push(__dirname);
  try {
    candidates.push(dirname(require.resolve('onnxruntime-web')));
  } catch {
    // not resolvable from a bundle without node_modules; the bundle folder is the answer then
  }
  const hit = candidates.find((d) => existsSync(join(d, WASM_FILE)));
  if (!hit) throw new K0Error('MODEL_UNAVAILABLE', `onnxruntime WASM (${WASM_FILE}) not found in ${candidates.join(', ')}`);
  return hit;
}

/**
 * Runs one sentence-embedding model on onnxruntime-node (native) or onnxruntime-web (WASM), see runtime.ts. Both
 * compute on the calling thread, so the product only creates it inside the embedding worker (see worker.ts);
 * tests and benches may use it directly.
 */
export class EmbeddingEngine {
  private constructor(
    readonly config: ModelConfig,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: TextTokenizer,
    private readonly batchSize: number,
    private readonly rt: OrtRuntime,
    /** Why native was wanted but WASM runs (binary present but failed to load or to create the session). */
    readonly fallbackReason: string | undefined,
  ) {}

  /** Which runtime computes: vectors of both are interchangeable (test/unit/embed/runtimeParity.test.ts). */
  get runtime(): RuntimeName {
    return this.rt.name;
  }

  static async load(modelDir: string, opts: EngineOptions = {}): Promise<EmbeddingEngine> {
    const { config } = readModelFolder(modelDir);
    const tokenizer = loadTokenizer(join(modelDir, 'tokenizer.json'), config.maxTokens);
    const choice = opts.runtime ?? requestedRuntime();
    const selected = selectRuntime(choice);
    let rt = selected.runtime;
    let fallbackReason = selected.fallbackReason;
    const model = readFileSync(join(modelDir, 'model.onnx'));
    let session: ort.InferenceSession;
    try {
      session = await createSession(rt, model, opts);
    } catch (err) {
      const why = `model.onnx in ${modelDir} cannot be loaded: ${(err as Error).message ?? err}`;
      // A native session that fails where WASM might not (an old CPU, a broken binary): try WASM once, keep why.
      if (rt.name !== 'native' || choice === 'native') throw new K0Error('MODEL_UNAVAILABLE', why, { dir: modelDir });
      fallbackReason = `onnxruntime-node: ${why}`;
      rt = selectRuntime('wasm').runtime;
      try {
        session = await createSession(rt, model, opts);
      } catch (err2) {
        throw new K0Error('MODEL_UNAVAILABLE', `model.onnx in ${modelDir} cannot be loaded: ${(err2 as Error).message ?? err2}`, { dir: modelDir });
      }
    }
    for (const input of ['input_ids', 'attention_mask']) {
      if (!session.inputNames.includes(input)) {
        await session.release();
        throw new K0Error('MODEL_UNAVAILABLE', `model.onnx in ${modelDir} has no input ${input}`, { dir: modelDir });
      }
    }
    return new EmbeddingEngine(config, session, tokenizer, Math.max(1, opts.batchSize ?? 32), rt, fallbackReason);
  }

  tokenize(text: string): number[] {
    return this.tokenizer.encode(text).ids;
  }

  async embed(texts: readonly string[]): Promise<EmbedResult> {
    const encoded = texts.map((t) => this.tokenizer.encode(t));
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a].ids.length - encoded[b].ids.length);
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const batch = order.slice(start, start + this.batchSize);
      const out = await this.runBatch(batch.map((i) => encoded[i].ids));
      batch.forEach((textIndex, row) => (vectors[textIndex] = out[row]));
      // The WASM run never yields to the event loop (the native one computes off it but the thread still
      // owes replies); yield between batches so the thread stays responsive.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { vectors, truncated: encoded.map((e) => e.fullLength - e.ids.length), cut: encoded.map((e) => e.cut) };
  }

  private async runBatch(batch: number[][]): Promise<Float32Array[]> {
    const rows = batch.length;
    // At least one column: a batch of empty texts still has a shape; its rows pool to the model's "no token" vector.
    const width = Math.max(1, ...batch.map((ids) => ids.length));
    const ids = new BigInt64Array(rows * width);
    const mask = new BigInt64Array(rows * width);
    batch.forEach((row, r) => row.forEach((id, c) => ((ids[r * width + c] = BigInt(id)), (mask[r * width + c] = 1n))));
    const { Tensor } = this.rt.ort;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new Tensor('int64', ids, [rows, width]),
      attention_mask: new Tensor('int64', mask, [rows, width]),
    };
    if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new Tensor('int64', new BigInt64Array(rows * width), [rows, width]);
    const outputName = this.config.output ?? this.session.outputNames[0];
    const result = await this.session.run(feeds, [outputName]);
    const tensor = result[outputName];
    try {
      return this.pool(tensor, batch, width);
    } finally {
      tensor.dispose();
    }
  }

  private pool(tensor: ort.Tensor, batch: number[][], width: number): Float32Array[] {
    const data = tensor.data as Float32Array;
    const dim = this.config.dimension;
    const hidden = tensor.dims[tensor.dims.length - 1];
    if (hidden !== dim) throw new K0Error('MODEL_UNAVAILABLE', `model output has dimension ${hidden}, k0model.json says ${dim}`);
    return batch.map((row, r) => {
      const v = new Float32Array(dim);
      if (this.config.pooling === 'none') v.set(data.subarray(r * dim, (r + 1) * dim));
      else if (this.config.pooling === 'cls') v.set(data.subarray(r * width * dim, r * width * dim + dim));
      else {
        const n = Math.max(1, row.length);
        for (let t = 0; t < row.length; t++) {
          const off = (r * width + t) * dim;
          for (let j = 0; j < dim; j++) v[j] += data[off + j];
        }
        for (let j = 0; j < dim; j++) v[j] /= n;
      }
      if (this.config.normalize) normalizeInPlace(v);
      return v;
    });
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** One session on the chosen runtime; threads are onnxruntime's intra-op threads on either. */
async function createSession(rt: OrtRuntime, model: Uint8Array, opts: EngineOptions): Promise<ort.InferenceSession> {
  const threads = Math.max(1, opts.threads ?? 1);
  const common: ort.InferenceSession.SessionOptions = {
    executionProviders: rt.executionProviders,
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: opts.spinning ? '1' : '0' } } },
  };
  if (rt.name === 'wasm') {
    rt.ort.env.wasm.numThreads = threads;
    rt.ort.env.wasm.wasmPaths = (opts.wasmDir ?? findWasmDir()).replace(/\/?$/, '/');
    return rt.ort.InferenceSession.create(model, common);
  }
  return rt.ort.InferenceSession.create(model, { ...common, intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential' });
}

export function normalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}
