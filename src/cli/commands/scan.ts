import { openProject } from '../../core/project';
import type { ScanReport } from '../../core/scan/scanner';
import { EXIT, writeJson, writeLine, type Command } from '../command';
import { progressBar } from '../progress';

export function formatScanReport(r: ScanReport): string {
  const lines = [
    `Indexed ${r.total} note(s) in ${r.durationMs.toFixed(1)} ms: ${r.added} added, ${r.modified} modified, ${r.touched} touched, ${r.unchanged} unchanged, ${r.deleted} deleted, ${r.skipped.length} skipped`,
  ];
  for (const s of r.skipped) lines.push(`  skipped ${s.path}: ${s.reason}`);
  for (const w of r.warnings) lines.push(`  warning ${w.path}:${w.line}: ${w.message}`);
  return lines.join('\n');
}

export const scanCommand: Command = {
  name: 'scan',
  summary: 'Bring the index up to date with the Markdown (incremental: presence → mtime → xxh3)',
  usage: 'scan [--json]',
  async run({ vault, io, json }) {
    const project = openProject({ vault, cwd: io.cwd, env: io.env, log: (level, msg) => writeLine(io.stderr, `${level}: ${msg}`) });
    try {
      const bar = progressBar(io.stderr, 'indexing');
      const report = await project.scan({ onProgress: ({ done, total }) => bar.update(done, total) });
      bar.end();
      if (json) writeJson(io.stdout, report);
      else writeLine(io.stdout, formatScanReport(report));
      return EXIT.OK;
    } finally {
      project.close();
    }
  },
};
