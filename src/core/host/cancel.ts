import { K0Error } from '../errors';

/** The one error a withdrawn request ends with (an MCP cancellation, an editor token, a closing host). */
export function cancelled(what = 'the request'): K0Error {
  return new K0Error('CANCELLED', `${what} was cancelled`);
}

export function throwIfCancelled(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted) throw cancelled(what);
}

/**
 * Waits for `work` unless `signal` fires first. The work itself goes on (a scan or an embedding step in flight is
 * shared with other callers, and stopping it half-way would gain nothing); only this caller stops waiting.
 */
export function untilCancelled<T>(work: Promise<T>, signal: AbortSignal | undefined, what?: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(cancelled(what));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(cancelled(what));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
