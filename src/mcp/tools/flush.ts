import { z } from 'zod';
import { guarded, textResult } from '../result';
import type { ToolDefinition } from './types';

export const flushSessionTool: ToolDefinition = {
  name: 'flush_session',
  description: 'Crystallize technical decisions, verified bug fixes, architecture decisions (ADRs), or task milestones back into the local Markdown vault as permanent notes.',
  inputSchema: {
    title: z.string().describe('Title of the decision or log note.'),
    content: z.string().describe('Detailed Markdown content.'),
    summary: z.string().optional().describe('Brief one-line summary or executive conclusion.'),
    category: z.string().optional().describe("Category: 'decision', 'log', 'concept' (alias: 'card'), 'skill', or custom (default: 'log')."),
    tags: z.array(z.string()).optional().describe('Associated tags (e.g. ["redis", "mutex"]).'),
    related_notes: z.array(z.string()).optional().describe('Related existing notes to link via WikiLinks.'),
    supersedes: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Existing note(s) or ADR(s) that this note supersedes. Automatically marks old notes as status: superseded.'),
  },
  outputSchema: {
    outcome: z.enum(['created', 'up_to_date', 'versioned']),
    path: z.string(),
    category: z.string(),
    superseded: z.array(z.string()),
    warnings: z.array(z.string()),
  },
  // Supersession edits existing notes' frontmatter, so the tool is not purely additive.
  annotations: { title: 'Flush to vault', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  sidecar: true,
  handler: (args, ctx) =>
    guarded(async () => {
      const project = await ctx.host.fresh({ reason: 'flush_session', signal: ctx.signal });
      const { flushNote } = await import('../../core/flush');
      // A cancellation stops the flush before it writes, never half-way (flushNote checks it once, on entry).
      const r = await flushNote(project.paths, {
        title: args.title as string,
        content: args.content as string,
        summary: args.summary as string | undefined,
        category: args.category as string | undefined,
        tags: args.tags as string[] | undefined,
        related_notes: args.related_notes as string[] | undefined,
        supersedes: args.supersedes as string | string[] | undefined,
      }, { signal: ctx.signal });
      await project.scan(); // the new note and the superseded ones are searchable, and their rules swap, at once
      const verb = r.outcome === 'up_to_date' ? 'Already up to date' : r.outcome === 'versioned' ? 'Written as a new version' : 'Created';
      const lines = [`✓ ${verb}: ${r.path}`];
      if (r.superseded.length) lines.push(`  Superseded: ${r.superseded.join(', ')} (their guard rules no longer apply)`);
      for (const w of r.warnings) lines.push(`  Note: ${w}`);
      return textResult(lines.join('\n'), { outcome: r.outcome, path: r.path, category: r.category, superseded: r.superseded, warnings: r.warnings });
    }),
};
