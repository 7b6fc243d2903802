import type { Passage } from '../search/vector';

/** What a budgeted catch-up needs of the vector store (VectorStore in the product; a fake in tests). */
export interface PendingStore {
  pendingPassages(): Passage[];
  put(entries: { hash: string; vector: Float32Array }[]): void;
  refresh(): void;
}

export type EmbedTexts = (texts: string[]) => Promise<{ vectors: Float32Array[]; cut?: boolean[] }>;

export interface CatchUpOptions {
  /** Time the whole call may spend, counted from `since` (so the model load the caller already waited counts). */
  budgetMs?: number;
  /** When the caller's clock started, on `now()`'s scale; default: now. */
  since?: number;
  /** The clock (ms); performance.now() unless a test drives one. */
  now?: () => number;
  /** Largest batch (one inference request). */
  maxBatch?: number;
  /** Cost per passage assumed before the first batch is measured (a long-lived channel passes the last one measured). */
  initialMsPerPassage?: number;
  /** Time kept back for the store refresh that follows the last batch (the last one measured, when known). */
  reserveMs?: number;
  /** Size of the first batch while the cost is still a guess: small, so a wrong guess costs little. */
  firstBatch?: number;
  /** Hashes of passages the model failed on alone: not tried again (the caller keeps the set across calls). */
  skip?: Set<string>;
  /**
   * The previous call had time left but not enough for one passage. A caller that keeps calling with such a budget
   * (a background fill in short steps on a slow machine) would never progress: this call then embeds one passage
   * even though it is predicted to end past the deadline — one passage of overrun, never a batch started after it.
   */
  starvedBefore?: boolean;
  /**
   * Checked before every batch: true stops the catch-up there (a background fill gives way to a caller that is
   * waiting for the worker; the caller then waits at most for the batch in flight).
   */
  yieldTo?: () => boolean;
  /** Caps each batch at what the measured cost says fits in this long (a background fill keeps batches short). */
  batchMs?: number;
}

export interface CatchUpReport {
  embedded: number;
  batches: number;
  /** Batches started when the deadline had already passed: 0 is the guarantee (the tests hold us to it). */
  batchesAfterDeadline: number;
  /** Passages longer than the model can read: embedded from their beginning (see tokenizer.ts readableChars). */
  oversized: number;
  /** Passages the model failed on alone (after their batch failed): skipped for this process, left pending. */
  skipped: number;
  stoppedBy: 'done' | 'budget' | 'yielded';
  /** How far past the deadline the last batch ended (0 when it did not). */
  overrunMs: number;
  /** The cost per passage the batches were sized with at the end (ms). */
  msPerPassage: number;
  /** What the refresh after the batches took (ms; 0 when nothing was embedded). */
  refreshMs: number;
  /** Time was left but less than one passage's worth (see CatchUpOptions.starvedBefore). */
  starved: boolean;
}

/**
 * 65 ms per ~94-token paragraph on one WASM thread was measured here (docs/platform notes); start a little above
 * it so the first batch, sized before anything was measured, ends inside the budget on a slower machine too.
 */
const INITIAL_MS_PER_PASSAGE = 90;
const MAX_BATCH = 32;

/**
 * Embeds pending passages until none is left or the budget is spent. The budget is checked before every batch
 * *and* sizes it: each batch holds only as many passages as the measured cost per passage says fit in the time
 * left (so batches shrink near the deadline, down to one; none starts once less than one passage fits). One
 * inference call cannot be interrupted, so the overrun is bounded by the error of that estimate on one batch,
 * not by a whole batch of 32 (~1.8 s here) as it was.
 */
export async function embedWithinBudget(store: PendingStore, embed: EmbedTexts, opts: CatchUpOptions = {}): Promise<CatchUpReport> {
  const now = opts.now ?? (() => performance.now());
  const deadline = opts.budgetMs === undefined ? Infinity : (opts.since ?? now()) + opts.budgetMs - (opts.reserveMs ?? 0);
  const maxBatch = Math.max(1, opts.maxBatch ?? MAX_BATCH);
  let msPerPassage = opts.initialMsPerPassage ?? INITIAL_MS_PER_PASSAGE;
  const report: CatchUpReport = { embedded: 0, batches: 0, batchesAfterDeadline: 0, oversized: 0, skipped: 0, stoppedBy: 'done', overrunMs: 0, msPerPassage, refreshMs: 0, starved: false };
  const measured = opts.initialMsPerPassage !== undefined;
  const firstBatch = Math.max(1, opts.firstBatch ?? (measured || deadline === Infinity ? maxBatch : 4));
  const skip = opts.skip ?? new Set<string>();
  // Shortest first: each batch is padded to its longest text and the engine sorts only within one call, so batches
  // cut in corpus order padded 36 % of their tokens (51 % of the attention work) on the ADR corpus. Ordered by
  // words + punctuation marks (a cheap token estimate; the tokenizer lives in the worker): 16 % (25 %).
  const todo = store.pendingPassages().filter((p) => !skip.has(p.hash));
  const size = new Map(todo.map((p) => [p, roughTokens(p.text)]));
  todo.sort((a, b) => size.get(a)! - size.get(b)!);
  let i = 0;
  while (i < todo.length) {
    if (opts.yieldTo?.()) {
      report.stoppedBy = 'yielded';
      break;
    }
    const left = deadline - now();
    let fits = left === Infinity ? maxBatch : Math.floor(left / msPerPassage);
    if (fits < 1 && left > 0 && report.batches === 0) {
      if (opts.starvedBefore) fits = 1;
      else report.starved = true;
    }
    if (opts.batchMs !== undefined && fits >= 1) fits = Math.min(fits, Math.max(1, Math.floor(opts.batchMs / msPerPassage)));
    if (fits < 1) {
      report.stoppedBy = 'budget';
      break;
    }
    if (left <= 0) report.batchesAfterDeadline++; // cannot happen while fits >= 1; counted so a test would see it
    const slice = todo.slice(i, i + Math.min(report.batches === 0 ? firstBatch : maxBatch, fits));
    const t0 = now();
    const result = await embedOrSkip(slice, embed, report, skip, () => deadline - now() >= msPerPassage);
    const took = now() - t0;
    report.batches++;
    // A smoothed cost, leaning to the newest batch: the host's load changes while a fill runs.
    msPerPassage = Math.max(1, 0.3 * msPerPassage + 0.7 * (took / slice.length));
    store.put(result);
    report.embedded += result.length;
    i += slice.length;
  }
  report.msPerPassage = msPerPassage;
  if (report.embedded) {
    const t0 = now();
    store.refresh();
    report.refreshMs = now() - t0;
  }
  const end = now();
  const promised = deadline + (opts.reserveMs ?? 0);
  if (end > promised) report.overrunMs = end - promised;
  return report;
}

/** Words and punctuation marks: ranks passages by length in tokens well enough to batch alike ones together. */
export function roughTokens(text: string): number {
  return text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0;
}

/**
 * One batch; if the worker rejects it for a reason other than a crash or a missing model (those end the fill),
 * each passage is tried alone so one bad passage cannot keep the rest of the vault from its vectors.
 */
async function embedOrSkip(slice: Passage[], embed: EmbedTexts, report: CatchUpReport, skip: Set<string>, timeLeft: () => boolean): Promise<{ hash: string; vector: Float32Array }[]> {
  try {
    const { vectors, cut } = await embed(slice.map((p) => p.text));
    report.oversized += cut?.filter(Boolean).length ?? 0;
    return slice.map((p, j) => ({ hash: p.hash, vector: vectors[j] }));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (slice.length === 1 || code === 'MODEL_UNAVAILABLE' || code === 'CANCELLED') throw err;
    const out: { hash: string; vector: Float32Array }[] = [];
    for (const p of slice) {
      if (!timeLeft()) break; // the rest stays pending for the next call
      try {
        const { vectors, cut } = await embed([p.text]);
        report.oversized += cut?.[0] ? 1 : 0;
        out.push({ hash: p.hash, vector: vectors[0] });
      } catch (inner) {
        const c = (inner as { code?: string }).code;
        if (c === 'MODEL_UNAVAILABLE' || c === 'CANCELLED') throw inner;
        report.skipped++;
        skip.add(p.hash);
      }
    }
    return out;
  }
}
