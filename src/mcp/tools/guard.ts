import { z } from 'zod';
import { guarded, textResult } from '../result';
import type { ToolDefinition } from './types';

const inputSchema = {
  diff: z.string().optional().describe('Optional git unified diff text to audit. If omitted, automatically inspects working tree changes in current git repository.'),
  project_name: z.string().optional().describe('Optional target project name to filter ADR invariants for.'),
  repo_path: z.string().optional().describe('Optional path to the git repository to audit, inside the project (defaults to the project root).'),
  branch: z.string().optional().describe("Optional base branch/revision for comparison (e.g. 'main', 'dev')."),
  strict: z.boolean().optional().describe('Treat advisory warnings as blocking failures.'),
  files: z.array(z.string()).optional().describe('Optional explicit file paths (inside the project) to audit instead of a diff.'),
};
const Args = z.object(inputSchema);

export const guardCheckTool: ToolDefinition = {
  name: 'guard_check',
  description:
    'Audit git diff or code changes against active Living ADR architectural invariants and project rules (<10ms). Always invoke this before committing or after implementing features to ensure mandatory patterns are satisfied.',
  inputSchema,
  annotations: { title: 'Living ADR guard check', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  sidecar: true,
  handler: (args, ctx) =>
    guarded(async () => {
      const [{ guardCheck }, { guardResultJson, renderGuardReport }] = await Promise.all([import('../../core/guard/check'), import('../../core/guard/report')]);
      const a = Args.parse(args);
      const project = await ctx.host.fresh({ reason: 'guard_check', signal: ctx.signal });
      // "Current directory" for an MCP server is wherever the client started it (Cursor: `/`): use the project root.
      // A caller's repo_path and files must stay inside the project (PATH_OUTSIDE_VAULT): the guard reads only the
      // project's files, and runs git only on repositories in it (with repository-configured programs disabled).
      const result = await guardCheck({
        diff: a.diff,
        project: a.project_name,
        repoPath: a.repo_path,
        branch: a.branch,
        strict: a.strict,
        files: a.files,
        confineTo: project.paths.projectRoot,
        cwd: project.paths.projectRoot,
        vault: project.paths.projectRoot,
        env: ctx.env,
        cache: project.index,
        signal: ctx.signal,
      });
      return textResult(renderGuardReport(result), guardResultJson(result));
    }),
};
