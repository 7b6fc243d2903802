import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { K0Error } from '../../core/errors';
import { CLI_OFFLOAD_THRESHOLD, offloadLog } from '../../core/offload';
import { locateVault } from '../../core/vault/paths';
import { EXIT, writeJson, type Command } from '../command';

function intOption(name: string, v: unknown, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new K0Error('INVALID_ARGUMENT', `--${name} must be a non-negative integer, got ${String(v)}`);
  return n;
}

export const offloadCommand: Command = {
  name: 'offload',
  summary: 'Fold a long terminal log into a Mermaid diagram + summary; the raw log goes to .k0maru/refs/',
  usage: ['offload [--threshold N] [--task NAME] [--json] [FILE]', '<command> 2>&1 | k0maru offload'].join('\n'),
  options: {
    threshold: { type: 'string' },
    task: { type: 'string' },
  },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    if (positionals.length > 1) throw new K0Error('INVALID_ARGUMENT', 'offload takes at most one FILE');
    const threshold = intOption('threshold', values.threshold, CLI_OFFLOAD_THRESHOLD);
    const paths = locateVault({ vault, cwd: io.cwd, env: io.env });
    const file = positionals[0];
    // Streamed either way: a 100 MB build log is never read into one string.
    const stream: Readable = file && file !== '-' ? createReadStream(resolve(io.cwd, file)) : io.stdin;
    const r = await offloadLog(paths, { stream, taskName: values.task as string | undefined, threshold, source: 'cli' });
    if (json) {
      const { analysis, ...rest } = r;
      writeJson(io.stdout, { ...rest, text: r.text, analysis: { ...analysis, errors: analysis.errors.slice(0, 10) } });
      return EXIT.OK;
    }
    io.stdout.write(r.text.endsWith('\n') || r.text === '' ? r.text : r.text + '\n');
    return EXIT.OK;
  },
};
