import type { Worker } from 'node:worker_threads';
import { K0Error } from '../errors';
import { startWorkerThread, workerScriptPath } from '../host/workerThread';
import type { FileJob, FileOutcome } from './examine';
import type { ParseReply, ParseRequest } from './parseProtocol';

export interface ParseWorkerOptions {
  /** The worker script (tests point it at a failing one); found beside the bundle or the sources by default. */
  script?: string;
  /** An idle worker is stopped after this long (default 10 s): a long-lived host does not keep one for nothing. */
  idleMs?: number;
}

type Pending = { resolve: (outcomes: FileOutcome[]) => void; reject: (err: K0Error) => void };

/**
 * Host side of the parse worker thread. It starts on first use and stops once idle; while nothing is asked of it
 * it does not hold the process open (a CLI exits as soon as its scan is done). If it dies or fails a request,
 * every request in flight is rejected and the next one starts a fresh worker — the scanner then examines the
 * files itself, so a crash costs speed, never a file.
 */
export class ParseWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Times a worker died under a request, and requests answered (benches and tests read them). */
  crashes = 0;
  answered = 0;

  constructor(private readonly opts: ParseWorkerOptions = {}) {}

  /** The outcomes of `jobs`, in order. Rejects with a K0Error when the worker cannot give them. */
  examine(jobs: FileJob[]): Promise<FileOutcome[]> {
    let worker: Worker;
    try {
      worker = this.ensure();
    } catch (err) {
      return Promise.reject(err instanceof K0Error ? err : new K0Error('INTERNAL', `parse worker did not start: ${(err as Error).message}`));
    }
    clearTimeout(this.idleTimer);
    // Held open while it owes an answer: an unref'd worker would let the process exit under an awaited scan.
    worker.ref();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, jobs } satisfies ParseRequest);
    });
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const file = this.opts.script ?? workerScriptPath(__dirname, 'parseWorker.js', 'parseWorker.ts');
    if (!file) throw new K0Error('INTERNAL', `parse worker script not found beside ${__dirname}`);
    const worker = startWorkerThread(file);
    this.worker = worker;
    worker.on('message', (reply: ParseReply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('error' in reply) p?.reject(new K0Error('INTERNAL', `parse worker: ${reply.error}`));
      else {
        this.answered++;
        p?.resolve(reply.outcomes);
      }
      if (!this.pending.size) this.idle(worker);
    });
    const died = (why: string) => {
      if (this.worker !== worker) return; // already replaced or disposed
      this.worker = undefined;
      if (this.pending.size) this.crashes++;
      this.rejectAll(new K0Error('INTERNAL', `parse worker ${why}`));
    };
    worker.on('error', (e) => died(`failed: ${e.message}`));
    worker.on('exit', (code) => died(`exited with code ${code}`));
    return worker;
  }

  private idle(worker: Worker): void {
    worker.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.dispose(), this.opts.idleMs ?? 10_000);
    this.idleTimer.unref();
  }

  private rejectAll(err: K0Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** Stops the worker; requests in flight are rejected. The next request starts a new one. */
  dispose(): void {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.rejectAll(new K0Error('INTERNAL', 'parse worker stopped'));
    void worker?.terminate();
  }
}

let shared: ParseWorker | undefined;

/** One parse worker per process, shared by every project it opens (a scan uses it only while it runs). */
export function sharedParseWorker(): ParseWorker {
  return (shared ??= new ParseWorker());
}
