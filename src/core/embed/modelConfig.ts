import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { K0Error } from '../errors';

/**
 * A model folder is everything the engine needs to embed text with one model:
 *   model.onnx      the graph (inputs input_ids / attention_mask [/ token_type_ids], int64 [B,T])
 *   tokenizer.json  a Hugging Face tokenizer definition
 *   k0model.json    this config
 * The id names the vectors it produces: vectors of two ids are never compared or mixed.
 */
export const ModelConfigSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'model id: letters, digits, . _ - (max 100)'),
  dimension: z.number().int().positive().max(8192),
  maxTokens: z.number().int().positive().max(8192),
  /** none: the graph's output already is one vector per text; mean / cls pool a [B,T,H] output. */
  pooling: z.enum(['none', 'mean', 'cls']),
  normalize: z.boolean(),
  /** Output to read; the first output when absent. */
  output: z.string().optional(),
  /** sha256 of each file, checked by `model install` (and on load when present). */
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).optional(),
  source: z.string().optional(),
  converter: z.string().optional(),
});
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

export const MODEL_FILES = ['model.onnx', 'tokenizer.json', 'k0model.json'] as const;

export interface ModelFolder {
  dir: string;
  config: ModelConfig;
}

function unavailable(dir: string, why: string): K0Error {
  return new K0Error('MODEL_UNAVAILABLE', `embedding model at ${dir} is unusable: ${why}`, { dir });
}

export function parseModelConfig(raw: string, dir = '(memory)'): ModelConfig {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw unavailable(dir, 'k0model.json is not valid JSON');
  }
  const parsed = ModelConfigSchema.safeParse(json);
  if (!parsed.success) throw unavailable(dir, `k0model.json: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Checks that a folder holds a complete model and reads its config; never loads the weights. */
export function readModelFolder(dir: string): ModelFolder {
  for (const f of MODEL_FILES) {
    const p = join(dir, f);
    if (!existsSync(p)) throw unavailable(dir, `${f} is missing`);
    if (statSync(p).size === 0) throw unavailable(dir, `${f} is empty`);
  }
  return { dir, config: parseModelConfig(readFileSync(join(dir, 'k0model.json'), 'utf8'), dir) };
}
