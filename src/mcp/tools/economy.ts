import { z } from 'zod';
import { guarded, textResult } from '../result';
import type { ToolDefinition } from './types';

/** The token-economy tools: full mode only except distill (omp has its own offloader and compactor). */

export const offloadContextTool: ToolDefinition = {
  name: 'offload_context',
  description:
    'Externalize and compress verbose terminal logs, build outputs, test traces, or error dumps (>30 lines) into a compact symbolic Mermaid state diagram on disk.',
  inputSchema: {
    raw_text: z.string().describe('The raw terminal output or stack trace to compress and store.'),
    task_name: z.string().optional().describe('Optional task identifier prefix.'),
  },
  outputSchema: {
    passthrough: z.boolean(),
    node_id: z.string().optional(),
    raw_file: z.string().optional(),
    lines: z.number(),
    tokens_before: z.number(),
    tokens_after: z.number(),
    reduction: z.number(),
    primary_error: z.string().optional(),
    root_location: z.string().optional(),
  },
  annotations: { title: 'Offload a long log', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: false,
  handler: (args, ctx) =>
    guarded(async () => {
      const [{ offloadLog, MCP_OFFLOAD_THRESHOLD }, { formatLocation }] = await Promise.all([import('../../core/offload/offload'), import('../../core/offload/types')]);
      const project = await ctx.host.paths();
      const r = await offloadLog(project, { text: String(args.raw_text ?? ''), taskName: args.task_name as string | undefined, threshold: MCP_OFFLOAD_THRESHOLD, source: 'mcp', signal: ctx.signal });
      const primary = r.analysis.primary;
      return textResult(r.text, {
        passthrough: r.passthrough,
        ...(r.nodeId ? { node_id: r.nodeId } : {}),
        ...(r.rawFile ? { raw_file: r.rawFile } : {}),
        lines: r.lines,
        tokens_before: r.tokensBefore,
        tokens_after: r.tokensAfter,
        reduction: r.reduction,
        ...(primary ? { primary_error: `${primary.code}: ${primary.message}` } : {}),
        ...(primary?.location ? { root_location: formatLocation(primary.location) } : {}),
      });
    }),
};

export const inspectLogNodeTool: ToolDefinition = {
  name: 'inspect_log_node',
  description: 'Retrieve and inspect the full offloaded raw terminal log or compiler trace content by its node ID (e.g. node_1a2b3c4d).',
  inputSchema: {
    node_id: z.string().describe('The symbolic node identifier from the Mermaid state diagram.'),
    start_line: z.number().int().optional().describe('Optional first line (1-based) of a slice, instead of the whole log.'),
    end_line: z.number().int().optional().describe('Optional last line (inclusive) of the slice.'),
    grep: z.string().optional().describe('Optional regular expression (RE2 syntax): return only matching lines, numbered.'),
    max_lines: z.number().int().optional().describe('Optional cap on the lines returned.'),
  },
  annotations: { title: 'Inspect an offloaded log', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: false,
  handler: (args, ctx) =>
    guarded(async () => {
      const { inspectLogNode } = await import('../../core/offload/inspect');
      const project = await ctx.host.paths();
      const r = await inspectLogNode(project, {
        node_id: String(args.node_id ?? ''),
        start_line: args.start_line as number | undefined,
        end_line: args.end_line as number | undefined,
        grep: args.grep as string | undefined,
        max_lines: args.max_lines as number | undefined,
        signal: ctx.signal,
      });
      return textResult(r.text);
    }),
};

export const gcSessionContextTool: ToolDefinition = {
  name: 'gc_session_context',
  description:
    'Perform long-trajectory context garbage collection (Context GC) on a multi-turn agent session trajectory, folding verbose tool outputs and repetitive compiler error dumps into symbolic references to keep context within the cognitive Smart-Zone (15%-60%) with TRR >= 85%.',
  inputSchema: {
    trajectory_json: z.string().describe('JSON serialized SessionTrajectory containing session_id and turns array.'),
    threshold: z.number().int().optional().describe('Line threshold before tool output is folded (default: 20).'),
    hot_window: z.number().int().optional().describe('Number of recent turns preserved untouched in hot window (default: 5).'),
    context_window: z.number().int().optional().describe('Context window size in tokens for Smart-Zone evaluation (default: 128000).'),
  },
  annotations: { title: 'Context GC', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: false,
  handler: (args, ctx) =>
    guarded(async () => {
      const { gcSession } = await import('../../core/gc/gcSession');
      const project = await ctx.host.paths();
      const r = await gcSession(project, {
        trajectory_json: String(args.trajectory_json ?? ''),
        threshold: args.threshold as number | undefined,
        hot_window: args.hot_window as number | undefined,
        context_window: args.context_window as number | undefined,
        signal: ctx.signal,
      });
      const rep = r.report;
      const summary = `✓ Context GC: ${rep.tokens_before} → ${rep.tokens_after} tokens (TRR ${(rep.trr * 100).toFixed(1)}%), ${rep.turns_before} → ${rep.turns_after} turns, ${(rep.share_after * 100).toFixed(1)}% of ${rep.context_window} (${rep.in_smart_zone ? 'in' : rep.zone} the 15–60% Smart-Zone), ${rep.nodes_created.length} node(s) created, ${rep.facts_kept.length} fact(s) kept verbatim in the digest (report.facts_kept lists them with their turn).`;
      return textResult(`${summary}\n\n${JSON.stringify(r.trajectory)}`, { report: rep as unknown as Record<string, unknown>, trajectory: r.trajectory as unknown as Record<string, unknown> } as Record<string, unknown>);
    }),
};

export const distillSessionSkillTool: ToolDefinition = {
  name: 'distill_session_skill',
  description:
    'Distill an execution trace, compilation error, or debugging session into a reusable troubleshooting playbook/skill note and save it to the vault or export to Hermes Agent or omp.',
  inputSchema: {
    raw_trace: z.string().optional().describe('Raw execution log, error stack trace, or debugging terminal output.'),
    node_id: z.string().optional().describe('Optional offloaded node ID from offload_context (e.g. node_1a2b3c4d).'),
    title: z.string().optional().describe('Optional explicit skill title (auto-inferred if omitted).'),
    context_hint: z.string().optional().describe('Optional context hint or explanation describing what happened.'),
    category: z.string().optional().describe("Target category (defaults to 'skill')."),
    tags: z.array(z.string()).optional().describe('Optional tags array.'),
    related_notes: z.array(z.string()).optional().describe('Optional related notes or WikiLinks array.'),
    dry_run: z.boolean().optional().describe('If true, returns preview without writing to vault.'),
    target: z.enum(['default', 'hermes', 'omp']).optional().describe("Optional target ecosystem schema: 'default' (vault), 'hermes' (Hermes skill), or 'omp' (omp skill)."),
  },
  annotations: { title: 'Distill a skill', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: true,
  handler: (args, ctx) =>
    guarded(async () => {
      const { distillSkill } = await import('../../core/distill/distill');
      const project = await ctx.host.fresh({ reason: 'distill_session_skill', signal: ctx.signal });
      const r = await distillSkill(project.paths, args, { env: ctx.env, signal: ctx.signal });
      const head = r.dry_run
        ? `Preview (nothing written): ${r.title} — ${r.runtime} / ${r.family}`
        : `✓ Skill distilled: ${r.title} — ${r.runtime} / ${r.family}${r.note ? `\n  Note: ${r.note.path} (${r.note.outcome})` : ''}${r.export ? `\n  Exported (${r.export.target}): ${r.export.path} (${r.export.outcome})` : ''}`;
      if (!r.dry_run) await project.scan();
      return textResult(`${head}\n\n${r.content}`);
    }),
};
