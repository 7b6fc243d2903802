import { z } from 'zod';
import type { RecallMode } from '../../core/search/types';
import { guarded, textResult } from '../result';
import type { ToolDefinition } from './types';

/** How long one call may spend embedding what changed before it answers (the rest is reported as pending). */
const VECTOR_BUDGET_MS = 1500;

export const recallMemoryTool: ToolDefinition = {
  name: 'recall_memory',
  description:
    "Search and retrieve documentation, technical research reports, project context, past architectural decisions, configurations, setup guides, and notes from the user's local knowledge vault. Always call this tool first whenever the user asks for domain information or past decisions.",
  inputSchema: {
    query: z.string().describe('Search query keywords or technical question.'),
    limit: z.number().int().optional().describe('Maximum number of results to return (default: 5).'),
    full: z
      .boolean()
      .optional()
      .describe('When true, returns full verbose markdown documents. When false (default), returns compact single-line K-DSL wire format (!μ:<tier>|<path>|score:<score>|links:<in>/<out> § <snippet>).'),
    mode: z.enum(['hybrid', 'bm25', 'vector']).optional().describe('Search mode (default: hybrid).'),
  },
  outputSchema: {
    mode: z.string(),
    /** "hybrid", or "hybrid (partial: 41 % of passages)" while vectors are missing; "bm25" when BM25 answered alone. */
    effective_mode: z.string(),
    coverage: z.object({ embedded: z.number(), passages: z.number() }).optional(),
    warnings: z.array(z.string()),
    hits: z.array(
      z.object({
        path: z.string(),
        title: z.string(),
        tier: z.string(),
        score: z.number(),
        snippet: z.string(),
        line: z.number(),
        links_in: z.number(),
        links_out: z.number(),
        superseded: z.boolean(),
        /** A template note (an ADR tool's `template.md`): a form, not a decision; demoted like a superseded one. */
        template: z.boolean().optional(),
        /** Code the note names changed or vanished since it was last true (the wire line says `[stale] `). */
        stale: z.object({ reason: z.string(), since: z.string() }).optional(),
        markdown: z.string().optional(),
      }),
    ),
  },
  annotations: { title: 'Recall memory', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: true,
  handler: (args, ctx) =>
    guarded(async () => {
      const { renderFull, renderWire } = await import('../../core/search/wire');
      const full = !!args.full;
      // Scan before answer, the vectors within the budget, and the BM25 fallback with its warning: all in the host.
      const r = await ctx.host.recall(String(args.query ?? ''), { limit: (args.limit as number | undefined) ?? 5, mode: args.mode as RecallMode | undefined, full, budgetMs: VECTOR_BUDGET_MS, signal: ctx.signal });
      const body = r.hits.length ? (full ? renderFull(r.hits) : renderWire(r.hits)) : 'No matching notes.';
      // A partial vector index is said in the text too: the agent reads the text, not always the structure.
      // Why a `[stale] ` line is stale, for an agent that reads only the text (the wire lines stay as they are).
      const stale = r.hits.filter((h) => h.stale).map((h) => `stale: ${h.path} — ${h.stale!.reason}`);
      const notes = [...(r.effectiveModeLabel !== r.effectiveMode ? [`answered as ${r.effectiveModeLabel}`] : []), ...stale, ...r.warnings];
      const text = notes.length ? `${body}\n\n(${notes.join('; ')})` : body;
      return textResult(text, {
        mode: r.mode,
        effective_mode: r.effectiveModeLabel,
        ...(r.coverage ? { coverage: r.coverage } : {}),
        warnings: r.warnings,
        hits: r.hits.map((h) => ({ path: h.path, title: h.title, tier: h.tier, score: h.score, snippet: h.snippet, line: h.line, links_in: h.linksIn, links_out: h.linksOut, superseded: h.superseded, ...(h.template ? { template: true } : {}), ...(h.stale ? { stale: { reason: h.stale.reason, since: h.stale.since } } : {}), ...(full ? { markdown: h.markdown ?? '' } : {}) })),
      });
    }),
};
