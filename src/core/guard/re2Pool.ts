import { K0Error } from '../errors';
import { LruMap } from './lru';
import { join } from 'node:path';
import { compileWasmQuickly } from '../index/wasmTier';

declare const __K0MARU_BUNDLED__: boolean | undefined;

/**
 * The process's RE2 engine (re2-wasm), loaded lazily, and the pool of its live compiled regexes: the one place that
 * creates, reuses and frees RE2 objects, so pattern matching elsewhere never leaks WASM memory.
 */

export interface Re2Like {
  lastIndex: number;
  exec(input: string): (string | undefined)[] & { index: number } | null;
  /** The embind object behind the regex; its memory lives in the WASM heap until deleted. */
  wrapper?: { delete?(): void };
}
type Re2Ctor = new (src: string, flags: string) => Re2Like;

let re2Ctor: Re2Ctor | undefined;
let loaded = false;
/** Whether this process has loaded (compiled) RE2 at all: a run whose regex rules never need it must not (tests). */
export function re2Loaded(): boolean {
  return loaded;
}
export function loadRe2(): Re2Ctor {
  // Loaded on first use: the WASM costs ~25 ms and many hook runs never meet a regex rule's prefilter.
  // In the bundles re2-wasm's JavaScript is a file of its own (dist/re2.cjs, 190 KB) required by path, so a hook
  // run that never needs RE2 does not even parse it (issue 17); it finds re2.wasm beside itself in dist/.
  // Compiled without TurboFan tier-up when the process is one-shot (the CLI, the git hook): ../index/wasmTier.ts.
  const bundled = typeof __K0MARU_BUNDLED__ !== 'undefined' && __K0MARU_BUNDLED__;
  const path = bundled ? join(__dirname, 're2.cjs') : 're2-wasm';
  re2Ctor ??= compileWasmQuickly(() => (require(path) as { RE2: Re2Ctor }).RE2);
  loaded = true;
  return re2Ctor;
}

/** RE2 objects are not garbage-collected (embind): they must be freed explicitly. */
export function freeRe2(re: Re2Like | undefined): void {
  try {
    re?.wrapper?.delete?.();
  } catch {
    // already freed
  }
}

/**
 * re2-wasm's heap is fixed at 16 MB (it cannot grow): a few hundred to a few thousand compiled regexes fill it
 * (fewer once their DFA caches warm up), and then RE2 fails. A host that checks for days sees many rules, so the
 * live RE2 objects are one pool per process, keyed by source and flags, at most RE2_POOL of them; the least
 * recently used is freed first and compiled again when it is needed again (compiling costs microseconds).
 */
export const RE2_POOL = 64;
let pool: LruMap<string, Re2Like> | undefined;

function pooledRe2(source: string, flags: string): Re2Like | undefined {
  pool ??= new LruMap<string, Re2Like>(RE2_POOL, (re) => freeRe2(re));
  const key = `${flags}/${source}`;
  let re = pool.get(key);
  if (!re) {
    re = makeRe2(source, flags);
    if (!re) {
      // Perhaps the heap is full (other hosts' objects, a DFA cache): free the pool and try once more.
      pool.clear();
      re = makeRe2(source, flags);
      if (!re) return undefined;
    }
    pool.set(key, re);
  }
  return re;
}

/** Live RE2 objects in the pool (for tests of the bound). */
export function re2PoolSize(): number {
  return pool?.size ?? 0;
}

/** Runs `fn` on the pooled RE2 object; a failure inside WASM (a full heap) frees the pool and retries once. */
export function withRe2<T>(source: string, flags: string, fn: (re: Re2Like) => T, refused: () => T): T {
  for (let attempt = 0; attempt < 2; attempt++) {
    const re = pooledRe2(source, flags);
    if (!re) return refused();
    try {
      return fn(re);
    } catch {
      pool?.clear();
    }
  }
  throw new K0Error('INTERNAL', `the regex engine failed on /${source}/ twice (out of memory?)`);
}

function makeRe2(source: string, flags: string): Re2Like | undefined {
  try {
    return new (loadRe2())(source, flags);
  } catch {
    return undefined;
  }
}
