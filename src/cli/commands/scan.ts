import { openProject } from '../../core/project';
import type { ScanReport } from '../../core/scan/scanner';
import type { FillAllReport } from '../../core/embed/fillAll';
import { EXIT, writeJson, writeLine, type Command } from '../command';
import { etaProgress, formatDuration, progressBar } from '../progress';

export function formatScanReport(r: ScanReport): string {
  const lines = [
    `Indexed ${r.total} note(s) in ${r.durationMs.toFixed(1)} ms: ${r.added} added, ${r.modified} modified, ${r.touched} touched, ${r.unchanged} unchanged, ${r.deleted} deleted, ${r.skipped.length} skipped`,
  ];
  for (const s of r.skipped) lines.push(`  skipped ${s.path}: ${s.reason}`);
  for (const w of r.warnings) lines.push(`  warning ${w.path}:${w.line}: ${w.message}`);
  return lines.join('\n');
}

export function formatFillReport(r: FillAllReport): string {
  const rate = r.embeddedNow ? ` in ${formatDuration(r.embedMs)} (${r.passagesPerSecond} passages/s)` : '';
  const lines = [`Vectors (${r.model}): ${r.embedded} / ${r.passages} passages; ${r.embeddedNow} embedded now${rate}, model loaded in ${formatDuration(r.loadMs)}`];
  if (r.skipped) lines.push(`  ${r.skipped} passage(s) the model failed on were left without a vector (the next run tries them again)`);
  if (r.oversized) lines.push(`  ${r.oversized} passage(s) longer than the model reads were embedded from their beginning`);
  return lines.join('\n');
}

export const scanCommand: Command = {
  name: 'scan',
  summary: 'Bring the index up to date with the Markdown (incremental: presence → mtime → xxh3); --embed also every vector',
  usage: 'scan [--embed] [--model ID|PATH] [--json]',
  options: { embed: { type: 'boolean' }, model: { type: 'string' } },
  async run({ values, vault, io, json }) {
    const project = openProject({ vault, cwd: io.cwd, env: io.env, log: (level, msg) => writeLine(io.stderr, `${level}: ${msg}`) });
    // Ctrl+C during --embed: stop between batches; what was embedded stays stored and the next run resumes.
    const abort = new AbortController();
    const onSigint = () => abort.abort();
    if (values.embed) process.once('SIGINT', onSigint);
    try {
      const bar = progressBar(io.stderr, 'indexing');
      const report = await project.scan({ onProgress: ({ done, total }) => bar.update(done, total) });
      bar.end();
      let vectors: FillAllReport | undefined;
      if (values.embed) {
        if (!json) writeLine(io.stdout, formatScanReport(report));
        const { embedEverything } = await import('../../core/embed/fillAll');
        const progress = etaProgress(io.stderr, 'embedding', 'passages');
        try {
          vectors = await embedEverything(project.index, { model: values.model as string | undefined, env: io.env, onProgress: (d, t) => progress.update(d, t), signal: abort.signal });
        } finally {
          progress.end();
        }
      }
      if (json) writeJson(io.stdout, vectors ? { ...report, vectors } : report);
      else if (vectors) writeLine(io.stdout, formatFillReport(vectors));
      else writeLine(io.stdout, formatScanReport(report));
      return EXIT.OK;
    } finally {
      process.removeListener('SIGINT', onSigint);
      project.close();
    }
  },
};
