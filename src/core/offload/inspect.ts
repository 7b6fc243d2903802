import { relative } from 'node:path';
import { freeRe2, loadRe2, type Re2Like } from '../guard/re2Pool';
import { K0Error } from '../errors';
import { throwIfCancelled } from '../host/cancel';
import type { VaultPaths } from '../vault/paths';
import { visibleLine } from './ansi';
import { readLogLines } from './logLines';
import { findNodeFile, validateNodeId } from './store';

/** Without a range the seed's contract returns the whole raw log; this cap keeps a 100 MB log out of a context. */
export const DEFAULT_INSPECT_MAX_LINES = 5000;
/** A single line is returned up to this many characters (1 MB lines exist: minified bundles, binary junk); grep still tests all of it. */
export const MAX_INSPECT_LINE_CHARS = 10_000;

export interface InspectInput {
  node_id: string;
  /** 1-based, inclusive. */
  start_line?: number;
  end_line?: number;
  /** RE2 syntax (linear time, no backtracking), matched against the ANSI-stripped line. */
  grep?: string;
  max_lines?: number;
  /** The caller withdrew (an MCP cancellation): checked between batches of lines (a 64 MB log takes a while to grep). */
  signal?: AbortSignal;
}

export interface InspectResult {
  node_id: string;
  file: string;
  total_lines: number;
  start_line: number;
  end_line: number;
  lines_returned: number;
  /** More lines matched the request than `max_lines` allowed. */
  truncated: boolean;
  /** Raw lines (ANSI kept). Numbered `  N| ` when a range or grep was asked for, plain otherwise (the seed's shape). */
  text: string;
}

function positiveInt(name: string, v: number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v < 1) throw new K0Error('INVALID_ARGUMENT', `${name} must be a positive integer, got ${v}`);
  return v;
}

export async function inspectLogNode(paths: Pick<VaultPaths, 'refsDir' | 'projectRoot'>, input: InspectInput): Promise<InspectResult> {
  const nodeId = validateNodeId(input.node_id);
  const start = positiveInt('start_line', input.start_line) ?? 1;
  const end = positiveInt('end_line', input.end_line) ?? Number.POSITIVE_INFINITY;
  const max = positiveInt('max_lines', input.max_lines) ?? DEFAULT_INSPECT_MAX_LINES;
  if (end < start) throw new K0Error('INVALID_ARGUMENT', `end_line ${end} is before start_line ${start}`);
  let re: Re2Like | undefined;
  if (input.grep !== undefined) {
    if (!input.grep) throw new K0Error('INVALID_ARGUMENT', 'grep must not be empty');
    // re2-wasm loaded on first use, by the one loader (src/core/guard/re2Pool.ts): an inspect without grep, and every
    // command that imports the offload barrel (offload, gc, distill), does not pay for its WASM.
    const RE2 = loadRe2();
    try {
      re = new RE2(input.grep, 'u');
    } catch (err) {
      throw new K0Error('INVALID_ARGUMENT', `invalid grep pattern: ${(err as Error).message}`);
    }
  }
  try {
    return await readNode(paths, nodeId, { start, end, max, re, numbered: input.start_line !== undefined || input.end_line !== undefined || re !== undefined, signal: input.signal });
  } finally {
    // RE2 objects live in re2-wasm's fixed 16 MB heap and are never garbage-collected: a long-lived MCP server
    // that grepped once per call would fill it.
    freeRe2(re);
  }
}

async function readNode(
  paths: Pick<VaultPaths, 'refsDir' | 'projectRoot'>,
  nodeId: string,
  { start, end, max, re, numbered, signal }: { start: number; end: number; max: number; re?: Re2Like; numbered: boolean; signal?: AbortSignal },
): Promise<InspectResult> {
  const file = findNodeFile(paths.refsDir, nodeId);
  if (!file) throw new K0Error('NODE_NOT_FOUND', `no offloaded log with id ${nodeId} in ${relative(paths.projectRoot, paths.refsDir) || paths.refsDir}`);

  const out: string[] = [];
  let n = 0;
  let truncated = false;
  let first = 0;
  let last = 0;
  for await (const batch of readLogLines(file)) {
    throwIfCancelled(signal, 'inspect');
    for (const { n: lineNo, text: raw } of batch) {
      n = lineNo;
      if (n < start || n > end) continue;
      // The whole line is tested (RE2 is linear in its length); only what is returned is capped.
      if (re && re.exec(visibleLine(raw)) === null) continue;
      if (out.length >= max) {
        truncated = true;
        continue; // keep counting total_lines
      }
      const line = raw.length > MAX_INSPECT_LINE_CHARS ? `${raw.slice(0, MAX_INSPECT_LINE_CHARS)}… [+${raw.length - MAX_INSPECT_LINE_CHARS} chars]` : raw;
      out.push(numbered ? `${String(n).padStart(6)}| ${line}` : line);
      if (!first) first = n;
      last = n;
    }
  }
  return {
    node_id: nodeId,
    file: relative(paths.projectRoot, file),
    total_lines: n,
    start_line: first || start,
    end_line: last || Math.min(end, n),
    lines_returned: out.length,
    truncated,
    text: out.join('\n') + (truncated ? `\n… truncated at ${max} lines; pass start_line/end_line or grep for the rest` : ''),
  };
}
