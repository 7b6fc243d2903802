import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Builds dist/models/use-lite the way `node esbuild.mjs` does (a no-op when it is up to date). */
export function ensureBundledModel(): string {
  const dir = join(ROOT, 'dist', 'models', 'use-lite');
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'convert-model.mjs'), dir], { stdio: 'inherit' });
  return dir;
}

export const ORT_WASM_DIR = join(ROOT, 'node_modules', 'onnxruntime-web', 'dist');

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
