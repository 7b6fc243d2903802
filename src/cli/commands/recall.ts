import { K0Error } from '../../core/errors';
import { withProject } from '../../core/project';
import { recall } from '../../core/search/recall';
import { parseFusion } from '../../core/search/fusion';
import { openVectorChannel } from '../../core/embed/channel';
import type { RecallMode } from '../../core/search/types';
import { renderFull, renderWire } from '../../core/search/wire';
import { EXIT, writeJson, writeLine, type Command } from '../command';

export const recallCommand: Command = {
  name: 'recall',
  summary: 'Search the vault: compact wire lines by default, full Markdown with --full',
  usage: 'recall "query" [--limit N] [--mode hybrid|bm25|vector] [--fusion default|rrf|rrf+boost|wrrf|blend|rescue] [--model ID|PATH] [--explain] [--full] [--json]',
  options: {
    limit: { type: 'string', short: 'n' },
    mode: { type: 'string' },
    full: { type: 'boolean' },
    fusion: { type: 'string' },
    model: { type: 'string' },
    explain: { type: 'boolean' },
  },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    const query = positionals.join(' ').trim();
    if (!query) throw new K0Error('INVALID_ARGUMENT', 'a query is required: k0maru recall "what did we decide about caching"');
    const limit = values.limit === undefined ? 5 : Number(values.limit);
    const mode = (values.mode as RecallMode | undefined) ?? 'hybrid';
    return withProject({ vault, cwd: io.cwd, env: io.env }, async (project) => {
      const fusion = parseFusion(values.fusion as string | undefined);
      // The vector channel embeds what is missing within a time budget, then answers (BM25 if it cannot).
      const vec = mode === 'bm25' ? {} : await openVectorChannel(project.index, { model: values.model as string | undefined, env: io.env, fusion });
      let result;
      try {
        result = await recall(project, query, { limit, mode, full: !!values.full, vectors: vec.channel });
      } finally {
        await vec.channel?.dispose();
      }
      if (vec.warning) result.warnings.unshift(vec.warning);
      if (values.explain) {
        writeJson(io.stdout, { query, mode, effectiveMode: result.effectiveMode, fusion, warnings: result.warnings, pendingVectors: result.pendingVectors, candidates: result.hits.map((h) => ({ path: h.path, score: h.score, superseded: h.superseded, ...h.explain })) });
        return EXIT.OK;
      }
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
