import { isK0Error, K0Error } from '../errors';
import type { Project } from '../project';
import type { RecallOptions } from '../search/recall';
import type { RecallResult, VectorChannel } from '../search/types';
import { throwIfCancelled } from './cancel';

/** What a host can offer hybrid recall: a channel, or the reason there is none (then BM25 answers). */
export interface VectorAttempt {
  channel?: VectorChannel;
  warning?: string;
}

/** Gets the vector channel, embedding what changed for up to `budgetMs` first (undefined: the source's default). */
export type VectorSource = (budgetMs: number | undefined, signal?: AbortSignal) => Promise<VectorAttempt>;

export interface PolicyRecallOptions extends RecallOptions {
  /** How long this call may spend embedding passages the scanner changed before it answers. */
  budgetMs?: number;
  signal?: AbortSignal;
  /** Lets a caller wrap the channel for this call only (the search debugger swaps the fusion preset). */
  adaptChannel?(channel: VectorChannel): VectorChannel;
}

/** The generic line recall() adds when it got no channel; a host that knows why says so instead. */
const NO_CHANNEL = 'vector channel unavailable';

/**
 * The recall policy every adapter answers with (MCP tool, CLI, console, editor command), so they cannot drift:
 * - `bm25` never touches the embedding model;
 * - `hybrid` / `vector` ask the host for its channel within the budget, which the model load counts against (it
 *   runs in the background: ModelLoader). Until an embedding model is loaded — none installed, a broken one, a
 *   crashed worker, one still loading when the budget ends, or getting the channel failed outright — the answer
 *   comes from BM25 (the query cannot be embedded, so no stored vector helps), `effectiveMode` says `bm25`, and
 *   `warnings` says why, once, in the host's words;
 * - passages still waiting for vectors are reported (recall adds that warning and `pendingVectors`).
 * Only cancellation and bad input fail the call; nothing about the model ever does.
 */
export async function recallWithVectors(project: Pick<Project, 'index' | 'paths'>, query: string, opts: PolicyRecallOptions, source?: VectorSource): Promise<RecallResult> {
  const mode = opts.mode ?? 'hybrid';
  // Bad input is refused before anything starts an embedding worker (recall() checks the rest).
  if (typeof query !== 'string' || !query.trim()) throw new K0Error('INVALID_ARGUMENT', 'query must be a non-empty string');
  if (!['hybrid', 'bm25', 'vector'].includes(mode)) throw new K0Error('INVALID_ARGUMENT', 'mode must be hybrid, bm25 or vector');
  let vec: VectorAttempt = {};
  if (mode !== 'bm25') {
    if (!source) vec = { warning: 'this host has no embedding model: answered with BM25 only' };
    else {
      try {
        vec = await source(opts.budgetMs, opts.signal);
      } catch (err) {
        if (isK0Error(err) && err.code === 'CANCELLED') throw err;
        vec = { warning: `the embedding model could not be used (${err instanceof Error ? err.message : String(err)}): answered with BM25 only` };
      }
    }
  }
  throwIfCancelled(opts.signal, 'recall');
  // Loaded on first use: the MCP server imports this module at start, and its tools/list must not wait for search.
  const { recall } = await import('../search/recall');
  const channel = vec.channel && opts.adaptChannel ? keepModelFacts(vec.channel, opts.adaptChannel(vec.channel)) : vec.channel;
  const r = await recall(project, query, { limit: opts.limit, mode, full: opts.full, vectors: channel });
  if (vec.warning) {
    r.warnings = vec.channel ? [vec.warning, ...r.warnings] : [vec.warning, ...r.warnings.filter((w) => !w.startsWith(NO_CHANNEL))];
  }
  return r;
}

/**
 * A wrapped channel (the debugger's other fusion preset) still searches the same store with the same model: it
 * keeps the model's relevance floor and the store's coverage unless the wrapper sets its own, so no host can
 * lose the floor or report full coverage by swapping the fusion.
 */
function keepModelFacts(base: VectorChannel, adapted: VectorChannel): VectorChannel {
  const coverage = adapted.coverage ?? (base.coverage ? () => base.coverage!() : undefined);
  return { ...adapted, floor: adapted.floor ?? base.floor, coverage };
}
