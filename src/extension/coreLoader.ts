import { join } from 'node:path';

export type Core = typeof import('./core');
export type GuardCore = typeof import('./coreGuard');
export type ToolsCore = typeof import('./coreTools');
export type DistillCore = typeof import('./coreDistill');
export type ConsoleCore = typeof import('./coreConsole');

/**
 * Loads the core bundles built from ./core.ts, ./coreGuard.ts, ./coreTools.ts, ./coreDistill.ts and ./coreConsole.ts (dist/extension*.js). A computed
 * path keeps esbuild from inlining them into dist/extension.js; Node's require cache makes later calls free.
 * The first load of each is synchronous (it compiles the bundle), so its time is recorded for the report.
 */
export function loadCore(): Core {
  return load<Core>('extensionCore.js');
}

export function loadGuard(): GuardCore {
  return load<GuardCore>('extensionGuard.js');
}

export function loadTools(): ToolsCore {
  return load<ToolsCore>('extensionTools.js');
}

export function loadDistill(): DistillCore {
  return load<DistillCore>('extensionDistill.js');
}

export function loadConsole(): ConsoleCore {
  return load<ConsoleCore>('extensionConsole.js');
}

// Immutable modules and the measurement of their one load each; not service state.
const loaded = new Map<string, unknown>();
const loadTimes: Record<string, number> = {};

function load<T>(file: string): T {
  let m = loaded.get(file);
  if (m) return m as T;
  const t0 = performance.now();
  m = require(join(__dirname, file));
  loadTimes[file] = performance.now() - t0;
  loaded.set(file, m);
  return m as T;
}

/** Milliseconds each first (synchronous) bundle load blocked the extension host, by bundle file name. */
export function coreLoadTimes(): Record<string, number> {
  return { ...loadTimes };
}

/** A `{code, message}` for any failure: toK0Error from the core when it loads, a plain shape otherwise. */
export function toK0(err: unknown): { code: string; message: string } {
  // Each core bundle carries its own K0Error class, so `instanceof` fails across bundles: read the shape.
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  if (err instanceof Error && e.name === 'K0Error' && typeof e.code === 'string') return { code: e.code, message: err.message };
  try {
    return loadCore().toK0Error(err);
  } catch {
    return { code: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
  }
}
