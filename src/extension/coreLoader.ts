import { join } from 'node:path';

export type Core = typeof import('./core');

/**
 * Loads dist/extensionCore.js, the separate bundle built from ./core.ts. A computed path keeps esbuild from
 * inlining it into dist/extension.js; Node's require cache makes later calls free.
 */
export function loadCore(): Core {
  if (loadedCore) return loadedCore;
  const t0 = performance.now();
  loadedCore = require(join(__dirname, 'extensionCore.js')) as Core;
  coreLoadMs = performance.now() - t0;
  return loadedCore;
}

// A cache of one immutable module and the measurement of its one load; not service state.
let loadedCore: Core | undefined;
let coreLoadMs: number | undefined;

/** How long the synchronous first require of the core bundle blocked the extension host (undefined: not yet). */
export function coreLoadTime(): number | undefined {
  return coreLoadMs;
}

/** A `{code, message}` for any failure: toK0Error from the core when it loads, a plain shape otherwise. */
export function toK0(err: unknown): { code: string; message: string } {
  try {
    return loadCore().toK0Error(err);
  } catch {
    return { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
  }
}
