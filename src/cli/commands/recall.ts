import { K0Error } from '../../core/errors';
import { withProject } from '../../core/project';
import { recallWithVectors, type VectorSource } from '../../core/host/recallPolicy';
import { parseFusion } from '../../core/search/fusion';
import type { OpenedVectors } from '../../core/embed/channel';
import type { RecallResult } from '../../core/search/types';
import type { RecallMode } from '../../core/search/types';
import { renderFull, renderWire } from '../../core/search/wire';
import { renderExplainTable } from '../explainTable';
import { EXIT, writeJson, writeLine, type Command } from '../command';

/** How long a one-shot hybrid recall waits for the model by default (the one-shot channel's own default). */
export const DEFAULT_RECALL_BUDGET_MS = 3000;
/** Ten minutes: past that a "recall" is a hung command; a slow machine needs seconds to tens of seconds. */
export const MAX_RECALL_BUDGET_MS = 600_000;

/**
 * `--budget-ms N`: how long this command may wait for the embedding model to load (the one-shot channel embeds
 * only the query, so the model load is all the budget bounds). Digits only: `1e3`, `-1`, `2.5` or `` are refused
 * rather than read as something the caller did not write.
 */
export function parseBudgetMs(v: unknown): number {
  if (v === undefined) return DEFAULT_RECALL_BUDGET_MS;
  const s = String(v);
  const n = /^\d+$/.test(s) ? Number(s) : NaN;
  if (!Number.isSafeInteger(n) || n > MAX_RECALL_BUDGET_MS) {
    throw new K0Error('INVALID_ARGUMENT', `--budget-ms must be an integer from 0 to ${MAX_RECALL_BUDGET_MS} (milliseconds), got '${s}'`);
  }
  return n;
}

export const recallCommand: Command = {
  name: 'recall',
  // Kept equal to its entry in ./index.ts (the lazy registry; test/unit/core/cli.test.ts checks): flags are in usage.
  summary: 'Search the vault: compact wire lines by default, full Markdown with --full',
  usage: 'recall "query" [--limit N] [--mode hybrid|bm25|vector] [--fusion default|rrf|rrf+boost|wrrf|blend|rescue] [--model ID|PATH] [--budget-ms N] [--explain] [--full] [--json]',
  options: {
    limit: { type: 'string', short: 'n' },
    mode: { type: 'string' },
    full: { type: 'boolean' },
    fusion: { type: 'string' },
    model: { type: 'string' },
    explain: { type: 'boolean' },
    'budget-ms': { type: 'string' },
  },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    const query = positionals.join(' ').trim();
    if (!query) throw new K0Error('INVALID_ARGUMENT', 'a query is required: k0maru recall "what did we decide about caching"');
    const limit = values.limit === undefined ? 5 : Number(values.limit);
    const mode = (values.mode as RecallMode | undefined) ?? 'hybrid';
    const budgetMs = parseBudgetMs(values['budget-ms']);
    const fusion = parseFusion(values.fusion as string | undefined);
    const printResult = (result: RecallResult): void => {
      if (values.explain && !json) {
        writeLine(io.stdout, renderExplainTable({ query, mode, effectiveMode: result.effectiveModeLabel, fusion, warnings: result.warnings, pendingVectors: result.pendingVectors, hits: result.hits }));
        // Why a candidate ranks lower than its figures say: its score was multiplied by the stale factor.
        for (const h of result.hits) if (h.stale) writeLine(io.stdout, `stale: ${h.path} (score ×${h.explain.staleFactor}) since ${h.stale.since}: ${h.stale.reason}`);
        return;
      }
      if (values.explain) {
        writeJson(io.stdout, { query, mode, effectiveMode: result.effectiveMode, effectiveModeLabel: result.effectiveModeLabel, coverage: result.coverage, fusion, warnings: result.warnings, pendingVectors: result.pendingVectors, candidates: result.hits.map((h) => ({ path: h.path, score: h.score, superseded: h.superseded, ...(h.template ? { template: true } : {}), ...(h.stale ? { stale: h.stale } : {}), ...h.explain })) });
        return;
      }
      if (json) {
        writeJson(io.stdout, result);
        return;
      }
      if (result.effectiveModeLabel !== result.effectiveMode) writeLine(io.stderr, `note: answered as ${result.effectiveModeLabel}`);
      for (const w of result.warnings) writeLine(io.stderr, `note: ${w}`);
      if (!result.hits.length) writeLine(io.stderr, 'no matching notes');
      else writeLine(io.stdout, values.full ? renderFull(result.hits) : renderWire(result.hits));
    };
    return withProject({ vault, cwd: io.cwd, env: io.env }, async (project) => {
      // A one-shot host: the channel (its worker) lives for this command only. The mode / BM25-fallback / warning
      // policy is the one the MCP server, the console and the editor answer with (recallWithVectors).
      let opened: OpenedVectors | undefined;
      const source: VectorSource = async (budget) => {
        // Loaded only when a mode needs vectors: the embed code (and zod, ~1 MB of JavaScript with it) is most of
        // what a one-shot `recall --mode bm25` used to compile (issue 17).
        const { openVectorChannel } = await import('../../core/embed/channel');
        opened = await openVectorChannel(project.index, { model: values.model as string | undefined, env: io.env, fusion, budgetMs: budget ?? budgetMs });
        return opened;
      };
      try {
        const result = await recallWithVectors(project, query, { limit, mode, full: !!values.full, budgetMs }, source);
        printResult(result);
      } finally {
        // After the answer is out: stops the model and, when this process had to read the vectors from the index,
        // writes their snapshot for the next one-shot.
        await opened?.finish();
      }
      return EXIT.OK;
    });
  },
};
