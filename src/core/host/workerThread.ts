import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { workerThreads } from '../fsutil/lazyBuiltin';

/**
 * The script of a worker thread: `bundledName` beside the bundle (dist/), or `sourceName` beside the calling
 * module when running from sources under tsx (tests, benches). `dir` is the caller's __dirname: in a bundle every
 * module's is dist/, from sources it is the module's own folder. Undefined when neither exists.
 */
export function workerScriptPath(dir: string, bundledName: string, sourceName: string): string | undefined {
  for (const p of [join(dir, bundledName), join(dir, sourceName)]) if (existsSync(p)) return p;
  return undefined;
}

/**
 * Starts a worker thread on a script found by workerScriptPath. From sources the worker registers tsx itself:
 * loader hooks of the parent thread do not reach worker threads; tsx is resolved from this checkout, not from the
 * process's cwd (an MCP server may run with cwd `/`).
 */
export function startWorkerThread(file: string, workerData?: unknown): Worker {
  if (!file.endsWith('.ts')) return new (workerThreads().Worker)(file, { workerData });
  const boot = `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(file)});`;
  return new (workerThreads().Worker)(boot, { eval: true, workerData });
}
