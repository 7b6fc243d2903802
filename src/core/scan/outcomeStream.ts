import type { ParsedNote } from '../vault/markdown';
import { parseFileJob, readFileJob, type FileJob, type FileOutcome } from './examine';
import { loadHasher } from './hash';
import type { ParseWorker } from './parsePool';

/**
 * Jobs per worker request: large enough to amortise a post; the first ones smaller, so the scanning thread has
 * something to write soon after the worker starts instead of idling through a full slice.
 */
const SLICES = [25, 50, 100];

/** Where each worker request's jobs start, for `total` jobs, and `total` last: one request per consecutive pair. */
export function sliceStarts(total: number): number[] {
  const starts = [0];
  for (let k = 0; starts[k] < total; k++) starts.push(Math.min(total, starts[k] + SLICES[Math.min(k, SLICES.length - 1)]));
  return starts;
}

type Settled = { ok: FileOutcome[] } | { failed: Error };

/**
 * The outcomes of a scan's jobs, in job order, one `next()` per job. With a worker, slices of jobs are examined
 * there while the caller writes earlier outcomes to SQLite; a slice the worker fails is examined here instead, and
 * so is everything after it (`onWorkerFailed` is told once). Without one, each job is examined here when asked for.
 */
export class OutcomeStream {
  private hash: ((data: Uint8Array | string) => string) | undefined;
  private parseNote: ((text: string, rel: string) => ParsedNote) | undefined;
  private readonly requests: Promise<Settled>[] = [];
  /** Where each slice starts in `jobs` (one more entry than there are slices). */
  private readonly starts: number[];
  private nextSlice = 0;
  /** The first slice not yet requested. */
  private nextPost = 0;
  private slice: FileOutcome[] = [];
  private sliceStart = 0;
  private nextJob = 0;
  private worker: ParseWorker | undefined;
  /** Worker requests whose outcomes were used, and whether the worker failed and the rest was examined here. */
  readonly workerUse = { requests: 0, fellBack: false };

  constructor(
    private readonly jobs: FileJob[],
    worker: ParseWorker | undefined,
    /**
     * Jobs to keep requested ahead of the one consumed: more than the caller handles without awaiting (a write
     * batch), or the worker runs dry while the caller is busy and the caller then waits for it.
     */
    private readonly leadJobs: number,
    private readonly onWorkerFailed: (err: Error) => void = () => {},
  ) {
    this.worker = worker;
    this.starts = sliceStarts(jobs.length);
    this.postAhead(0);
  }

  /** Requests slices until they reach `leadJobs` past job `from` (bounded: a vault is never queued whole). */
  private postAhead(from: number): void {
    while (this.worker && this.nextPost + 1 < this.starts.length && this.starts[this.nextPost] < from + this.leadJobs) {
      const k = this.nextPost++;
      const jobs = this.jobs.slice(this.starts[k], this.starts[k + 1]);
      this.requests[k] = this.worker.examine(jobs).then(
        (ok) => ({ ok }),
        (failed: Error) => ({ failed }),
      );
    }
  }

  async next(): Promise<FileOutcome> {
    const i = this.nextJob++;
    if (i >= this.jobs.length) throw new Error(`OutcomeStream: job ${i} of ${this.jobs.length}`);
    if (!this.worker) return this.examineHere(this.jobs[i]);
    if (i === this.starts[this.nextSlice]) {
      const k = this.nextSlice++;
      const got = await this.requests[k];
      delete this.requests[k];
      const want = this.starts[k + 1] - i;
      if ('ok' in got && got.ok.length === want) {
        this.slice = got.ok;
        this.sliceStart = i;
        this.workerUse.requests++;
        this.postAhead(i);
      } else {
        this.worker = undefined;
        this.workerUse.fellBack = true;
        this.onWorkerFailed('failed' in got ? got.failed : new Error(`parse worker answered ${got.ok.length} of ${want} jobs`));
        return this.examineHere(this.jobs[i]);
      }
    }
    return this.slice[i - this.sliceStart];
  }

  private async examineHere(job: FileJob): Promise<FileOutcome> {
    // Both loaded on first need: a clean scan loads neither, a touch-only one never loads the parser.
    this.hash ??= await loadHasher();
    const read = readFileJob(job, this.hash);
    if (read.kind !== 'parse') return read;
    this.parseNote ??= (await import('../vault/markdown')).parseNote;
    return parseFileJob(job, read.bytes, read.hash, { hash: this.hash, parseNote: this.parseNote });
  }
}
