import { K0Error } from '../../core/errors';
import { inspectLogNode } from '../../core/offload';
import { locateVault } from '../../core/vault/paths';
import { EXIT, writeJson, writeLine, type Command } from '../command';

function parseRange(v: unknown): { start?: number; end?: number } {
  if (v === undefined) return {};
  const m = String(v).match(/^(\d*):(\d*)$/) ?? String(v).match(/^(\d+)$/);
  if (!m) throw new K0Error('INVALID_ARGUMENT', `--lines must look like A:B, A: or :B (1-based, inclusive), got ${String(v)}`);
  const start = m[1] ? Number(m[1]) : undefined;
  const end = m.length > 2 ? (m[2] ? Number(m[2]) : undefined) : start;
  return { start, end };
}

export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'Print an offloaded raw log (or a slice of it) by node id',
  usage: 'inspect node_1a2b3c4d [--lines A:B] [--grep RE2] [--max N] [--json]',
  options: {
    lines: { type: 'string' },
    grep: { type: 'string' },
    max: { type: 'string' },
  },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    if (positionals.length !== 1) throw new K0Error('INVALID_ARGUMENT', 'inspect needs exactly one node id');
    const { start, end } = parseRange(values.lines);
    const max = values.max === undefined ? undefined : Number(values.max);
    const paths = locateVault({ vault, cwd: io.cwd, env: io.env });
    const r = await inspectLogNode(paths, { node_id: positionals[0], start_line: start, end_line: end, grep: values.grep as string | undefined, max_lines: max });
    if (json) writeJson(io.stdout, r);
    else writeLine(io.stdout, r.text);
    return EXIT.OK;
  },
};
