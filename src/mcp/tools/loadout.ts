import { z } from 'zod';
import { guarded, textResult } from '../result';
import type { ToolDefinition } from './types';

export const getProjectLoadoutTool: ToolDefinition = {
  name: 'get_project_loadout',
  description:
    'Fetch high-priority architectural blueprint, core invariants, project vision, and recent ADR decision logs (<300 tokens) from the vault. Always call this at the start of any new coding session or before planning major changes. Supports change-aware diff inspection to dynamically activate module-relevant ADRs.',
  inputSchema: {
    project_name: z.string().optional().describe('Optional target project name or keyword. Auto-detected from repository/vault when omitted.'),
    diff: z.boolean().optional().describe('Inspect Git changes in workspace and dynamically activate module-relevant ADRs (<300 tokens).'),
    branch: z.string().optional().describe("Optional base branch for comparison (e.g. 'main', 'dev')."),
  },
  outputSchema: {
    markdown: z.string(),
    tokens: z.number(),
    budget: z.number(),
    activated_adrs: z.array(z.string()),
    changed_files: z.array(z.string()),
    /** Decisions whose anchored code changed since they were last true; marked ⚠ in the markdown (issue #18). */
    stale: z.array(z.object({ path: z.string(), reason: z.string(), since: z.string() })),
    /** Off (with the reason) outside a git repository or before staleness was computed: then nothing is marked. */
    staleness: z.object({ enabled: z.boolean(), reason: z.string().optional(), unknown: z.number().optional() }),
  },
  annotations: { title: 'Project loadout', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: true,
  handler: (args, ctx) =>
    guarded(async () => {
      const project = await ctx.host.fresh({ reason: 'get_project_loadout', signal: ctx.signal });
      const { getProjectLoadout } = await import('../../core/loadout/loadout');
      const l = await getProjectLoadout(project, { projectName: args.project_name as string | undefined, diff: args.diff as boolean | undefined, branch: args.branch as string | undefined });
      return textResult(l.markdown, { markdown: l.markdown, tokens: l.tokens, budget: l.budget, activated_adrs: l.activatedAdrs, changed_files: l.changedFiles.slice(0, 50), stale: l.staleDecisions.slice(0, 50), staleness: l.staleness.enabled ? { enabled: true, unknown: l.staleness.unknown } : { enabled: false, reason: l.staleness.reason } });
    }),
};
