import type * as Crypto from 'node:crypto';
import type * as Util from 'node:util';
import type * as WorkerThreads from 'node:worker_threads';

// Builtins a one-shot process (a clean scan, a git hook, a BM25 recall) usually never calls, loaded on first use:
// `node:crypto` brings ~36 internal modules (streams among them) and `node:worker_threads` ~25, 3–5 ms of a
// 25 ms Node 22 start each (issue 17). A top-level import would load them with the module that names them.
// `node:util` is needed at once (parseArgs), but an ES import of it builds its namespace, which reads util's lazy
// TextDecoder and with it loads util/diff and worker_threads; a require does not.

/** `node:crypto`, required on the first call. */
export const crypto = (): typeof Crypto => require('node:crypto') as typeof Crypto;

/** `node:worker_threads`, required on the first call. */
export const workerThreads = (): typeof WorkerThreads => require('node:worker_threads') as typeof WorkerThreads;

/** `node:util` by require (see above). */
export const nodeUtil = (): typeof Util => require('node:util') as typeof Util;
