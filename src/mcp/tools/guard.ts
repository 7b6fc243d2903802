import { z } from 'zod';
import { guarded, textResult } from '../result';
import type { ToolDefinition } from './types';

export const guardCheckTool: ToolDefinition = {
  name: 'guard_check',
  description:
    'Audit git diff or code changes against active Living ADR architectural invariants and project rules (<10ms). Always invoke this before committing or after implementing features to ensure mandatory patterns are satisfied.',
  inputSchema: {
    diff: z.string().optional().describe('Optional git unified diff text to audit. If omitted, automatically inspects working tree changes in current git repository.'),
    project_name: z.string().optional().describe('Optional target project name to filter ADR invariants for.'),
    repo_path: z.string().optional().describe('Optional path to the git repository to audit (defaults to current directory).'),
    branch: z.string().optional().describe("Optional base branch/revision for comparison (e.g. 'main', 'dev')."),
    strict: z.boolean().optional().describe('Treat advisory warnings as blocking failures.'),
    files: z.array(z.string()).optional().describe('Optional explicit file paths to audit instead of a diff.'),
  },
  annotations: { title: 'Living ADR guard check', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: true,
  handler: (args, ctx) =>
    guarded(async () => {
      const [{ guardCheck }, { guardResultJson, renderGuardReport }] = await Promise.all([import('../../core/guard/check'), import('../../core/guard/report')]);
      const project = await ctx.session.fresh();
      // "Current directory" for an MCP server is wherever the client started it (Cursor: `/`): use the project root.
      const result = await guardCheck({
        diff: args.diff as string | undefined,
        project: args.project_name as string | undefined,
        repoPath: (args.repo_path as string | undefined) ?? project.paths.projectRoot,
        branch: args.branch as string | undefined,
        strict: args.strict as boolean | undefined,
        files: args.files as string[] | undefined,
        cwd: project.paths.projectRoot,
        vault: project.paths.projectRoot,
        env: ctx.env,
        cache: project.index,
      });
      return textResult(renderGuardReport(result), guardResultJson(result));
    }),
};
