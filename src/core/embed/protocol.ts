/** Messages between the host and the embedding worker (worker.ts). One request → exactly one reply. */
import type { ModelConfig } from './modelConfig';
import type { RuntimeChoice, RuntimeName } from './runtime';

export interface WorkerInit {
  modelDir: string;
  threads: number;
  wasmDir?: string;
  batchSize?: number;
  spinning?: boolean;
  /** Forces a runtime; absent: the worker reads `K0MARU_EMBED_RUNTIME` (auto when unset), see runtime.ts. */
  runtime?: RuntimeChoice;
  /**
   * Test hook ($K0MARU_HOLD_MODEL_LOAD, see modelLoader.ts): the worker waits until this file exists before it loads
   * the model, so a test can hold a load "in progress" for as long as it needs without depending on timing.
   */
  holdLoadUntil?: string;
}

export type WorkerRequest =
  | { type: 'embed'; id: number; texts: string[] }
  | { type: 'tokenize'; id: number; text: string }
  /** Test hook: makes the worker exit abruptly, as a crash in the WASM runtime would. */
  | { type: 'crash'; id: number };

export type WorkerReply =
  /** runtime: what computes; fallbackReason: why native was wanted but WASM runs (said once in the host's log). */
  | { type: 'ready'; config: ModelConfig; runtime: RuntimeName; fallbackReason?: string }
  | { type: 'initError'; code: string; message: string }
  /** vectors: one Float32Array buffer of texts × dimension, transferred, not copied. */
  | { type: 'embedded'; id: number; buffer: ArrayBuffer; dimension: number; truncated: number[]; cut: boolean[] }
  | { type: 'tokens'; id: number; ids: number[] }
  | { type: 'error'; id: number; code: string; message: string };
