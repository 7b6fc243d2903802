import { cancelled } from './cancel';

export interface ScanRequest<P> {
  /** Why this scan is wanted (logged, shown in the editor's status); the first caller's reason names a shared scan. */
  reason?: string;
  /** Withdraws this caller: its promise rejects with CANCELLED; a queued scan nobody waits for any more never starts. */
  signal?: AbortSignal;
  onProgress?(p: P): void;
}

interface Waiter<R, P> {
  resolve(r: R): void;
  reject(err: unknown): void;
  onProgress?(p: P): void;
  detach(): void;
}

interface Flight<R, P> {
  reason: string;
  waiters: Set<Waiter<R, P>>;
  /** Set when the scan begins reading: until then a newcomer may still join it. */
  started: boolean;
  done?: Promise<void>;
}

/**
 * Single-flight scans with "scan before answer" kept honest. At most one scan runs. A caller that arrives while
 * none runs starts one; a caller that arrives while one runs does NOT share it — that scan may have read the notes
 * before the edit the caller wants to see — but waits for the next one, which starts after the running one ends.
 * Every caller arriving meanwhile shares that one follow-up, so a burst of N requests costs two scans, not N.
 */
export class ScanGate<R, P = unknown> {
  private running: Flight<R, P> | undefined;
  private queued: Flight<R, P> | undefined;
  private closed = false;

  constructor(private readonly run: (reason: string, onProgress: (p: P) => void) => Promise<R>) {}

  /** A scan that starts after this call, shared with the other callers of that scan. */
  request(req: ScanRequest<P> = {}): Promise<R> {
    if (this.closed) return Promise.reject(cancelled('the scan (the host is closing)'));
    if (req.signal?.aborted) return Promise.reject(cancelled('the scan'));
    const fresh = (): Flight<R, P> => ({ reason: req.reason ?? 'request', waiters: new Set(), started: false });
    const flight = !this.running ? this.start(fresh()) : !this.running.started ? this.running : (this.queued ??= fresh());
    return new Promise<R>((resolve, reject) => {
      const waiter: Waiter<R, P> = { resolve, reject, onProgress: req.onProgress, detach: () => {} };
      flight.waiters.add(waiter);
      const signal = req.signal;
      if (!signal) return;
      const onAbort = () => {
        flight.waiters.delete(waiter);
        // Nobody is left for the follow-up: it need not run at all.
        if (flight === this.queued && flight.waiters.size === 0) this.queued = undefined;
        reject(cancelled('the scan'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiter.detach = () => signal.removeEventListener('abort', onAbort);
    });
  }

  /** True while a scan runs or one is queued. */
  get busy(): boolean {
    return !!this.running;
  }

  /** Resolves once no scan runs and none is queued (failures included: they belong to their callers). */
  async idle(): Promise<void> {
    while (this.running) await this.running.done;
  }

  /** Refuses new requests, drops the queued scan (its callers get CANCELLED) and waits for the running one. */
  async close(): Promise<void> {
    this.closed = true;
    const q = this.queued;
    this.queued = undefined;
    if (q) this.settle(q, (w) => w.reject(cancelled('the scan (the host is closing)')));
    await this.idle();
  }

  private start(flight: Flight<R, P>): Flight<R, P> {
    this.running = flight;
    const progress = (p: P) => {
      for (const w of flight.waiters) w.onProgress?.(p);
    };
    flight.done = Promise.resolve()
      .then(() => {
        flight.started = true;
        return this.run(flight.reason, progress);
      })
      .then(
        (r) => this.settle(flight, (w) => w.resolve(r)),
        (err: unknown) => this.settle(flight, (w) => w.reject(err)),
      )
      .finally(() => {
        this.running = undefined;
        const next = this.queued;
        this.queued = undefined;
        if (next && !this.closed) this.start(next);
      });
    return flight;
  }

  private settle(flight: Flight<R, P>, fn: (w: Waiter<R, P>) => void): void {
    for (const w of flight.waiters) {
      w.detach();
      fn(w);
    }
    flight.waiters.clear();
  }
}
