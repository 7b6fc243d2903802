import { createReadStream, statSync } from 'node:fs';
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

/**
 * Opens FILE before the offload starts: a stream's open error fires while the core is still setting up (no listener
 * yet) and used to kill the process with Node's "Unhandled 'error' event". A pipe or FIFO (`<(make)`) is fine.
 */
async function openLog(abs: string, shown: string): Promise<Readable> {
  const fail = (err: NodeJS.ErrnoException) =>
    new K0Error('IO_ERROR', `cannot read ${shown}: ${err.code === 'ENOENT' ? 'no such file' : err.code === 'EACCES' ? 'permission denied' : err.message}`, { errno: err.code });
  try {
    if (statSync(abs).isDirectory()) throw new K0Error('IO_ERROR', `cannot read ${shown}: it is a folder, not a log file`);
  } catch (err) {
    throw err instanceof K0Error ? err : fail(err as NodeJS.ErrnoException);
  }
  const stream = createReadStream(abs);
  await new Promise<void>((ok, ko) => {
    stream.once('ready', () => ok());
    stream.once('error', (err) => ko(fail(err)));
  });
  // A later read error reaches the core through its for-await; this listener only keeps it from being "unhandled".
  stream.on('error', () => {});
  return stream;
}

export const offloadCommand: Command = {
  name: 'offload',
  summary: 'Fold a long terminal log into a Mermaid diagram + summary; the raw log goes to .k0maru/refs/',
  // Every usage line is printed after "k0maru ": the pipe form is written so that it still reads right.
  usage: ['offload [--threshold N] [--task NAME] [--json] [FILE]', 'offload < build.log   (or: <command> 2>&1 | k0maru offload)'].join('\n'),
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
    const stream: Readable = file && file !== '-' ? await openLog(resolve(io.cwd, file), file) : io.stdin;
    // A person reads this: point at the CLI command, not the MCP tool (issue 16 item 7).
    const r = await offloadLog(paths, { stream, taskName: values.task as string | undefined, threshold, source: 'cli', inspectHint: 'command' });
    if (json) {
      const { analysis, ...rest } = r;
      writeJson(io.stdout, { ...rest, text: r.text, analysis: { ...analysis, errors: analysis.errors.slice(0, 10) } });
      return EXIT.OK;
    }
    io.stdout.write(r.text.endsWith('\n') || r.text === '' ? r.text : r.text + '\n');
    return EXIT.OK;
  },
};
