import type { IHasher } from 'hash-wasm';

let hasher: IHasher | undefined;

/**
 * Loads the xxh3 WASM once; afterwards hashing is synchronous. hash-wasm is imported here, not at the top: a clean
 * scan — every mtime unchanged — never needs it (issue 17). The bundles take its xxh3-only module (18 KB instead of
 * the 270 KB main one with every algorithm's WASM inlined: esbuild.mjs's alias).
 */
export async function loadHasher(): Promise<(data: Uint8Array | string) => string> {
  hasher ??= await (await hashWasm()).createXXHash3();
  const h = hasher;
  return (data) => h.init().update(data).digest('hex');
}

type HashWasm = typeof import('hash-wasm');
/** hash-wasm is a UMD script: imported as CommonJS from an ES module (tsx, a test) its exports sit on `default`. */
async function hashWasm(): Promise<HashWasm> {
  const m = (await import('hash-wasm')) as HashWasm & { default?: HashWasm };
  return typeof m.createXXHash3 === 'function' ? m : m.default!;
}
