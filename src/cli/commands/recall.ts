import { K0Error } from '../../core/errors';
import { withProject } from '../../core/project';
import { recall } from '../../core/search/recall';
import type { RecallMode } from '../../core/search/types';
import { renderFull, renderWire } from '../../core/search/wire';
import { EXIT, writeJson, writeLine, type Command } from '../command';

export const recallCommand: Command = {
  name: 'recall',
  summary: 'Search the vault: compact wire lines by default, full Markdown with --full',
  usage: 'recall "query" [--limit N] [--mode hybrid|bm25|vector] [--full] [--json]',
  options: { limit: { type: 'string', short: 'n' }, mode: { type: 'string' }, full: { type: 'boolean' } },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    const query = positionals.join(' ').trim();
    if (!query) throw new K0Error('INVALID_ARGUMENT', 'a query is required: k0maru recall "what did we decide about caching"');
    const limit = values.limit === undefined ? 5 : Number(values.limit);
    const mode = (values.mode as RecallMode | undefined) ?? 'hybrid';
    return withProject({ vault, cwd: io.cwd, env: io.env }, async (project) => {
      const result = await recall(project, query, { limit, mode, full: !!values.full });
      if (json) {
        writeJson(io.stdout, result);
        return EXIT.OK;
      }
      for (const w of result.warnings) writeLine(io.stderr, `note: ${w}`);
      if (!result.hits.length) writeLine(io.stderr, 'no matching notes');
      else writeLine(io.stdout, values.full ? renderFull(result.hits) : renderWire(result.hits));
      return EXIT.OK;
    });
  },
};
