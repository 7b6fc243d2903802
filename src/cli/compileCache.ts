import * as nodeModule from 'node:module';
import { join } from 'node:path';

/**
 * V8's code cache for the CLI's own bundle, where the runtime offers one (issue 17: the fixed start cost of a
 * one-shot `k0maru scan` / `recall`). Node ≥ 22.1 has `module.enableCompileCache(dir)`: every module compiled
 * afterwards is looked up in `dir` by its path and a hash of its source, and the cache written at exit. The
 * folder is the package's own (`dist/.compile-cache/`, beside the bundle) — never the user's temp or home folder,
 * nothing in the project — and is left out of the .vsix (.vscodeignore lets in only top-level dist files).
 * A corrupt, half-written or stale entry is Node's to reject: it checks each entry's checksum and the source hash
 * before using it and recompiles when either differs, and it writes entries through a temporary file and a rename,
 * so two processes that write at once leave one whole entry (test/unit/cli/startCache.test.ts corrupts and races
 * it). A package folder that cannot be written just runs uncached: the API reports failure, it never throws.
 *
 * Node 20 has no such API for ES modules (a `vm.Script` cachedData cache would need the CLI as one CommonJS
 * script, not the split ESM build that keeps each command's code apart), so there the call does nothing.
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off, as it does Node's own.
 */
export const COMPILE_CACHE_DIR = '.compile-cache';

type EnableCompileCache = (dir: string) => { status: number; directory?: string; message?: string };

/** Turns the cache on for modules compiled after this call; returns its folder, or undefined when not used. */
export function useCompileCache(bundleDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1' || env.K0MARU_COMPILE_CACHE === '0') return undefined;
  const enable = (nodeModule as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function') return undefined;
  try {
    return enable(join(bundleDir, COMPILE_CACHE_DIR)).directory;
  } catch {
    return undefined; // documented never to throw; a start-up optimisation must not be the reason the CLI fails
  }
}
