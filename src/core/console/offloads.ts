import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { LineRange, LogLines, OffloadDetail, OffloadNode } from '../../shared/protocol';
import { MAX_LOG_RANGE } from '../../shared/protocol';
import { K0Error } from '../errors';
import { stripAnsi } from '../offload/ansi';
import { readLedgerNodes, type LedgerNode } from '../offload/ledger';
import { findNodeFile, validateNodeId } from '../offload/store';
import { readOffloadSummary } from '../offload/summaryFile';
import type { VaultPaths } from '../vault/paths';

type RefsPaths = Pick<VaultPaths, 'refsDir' | 'projectRoot'>;

/** A raw line longer than this is cut for the viewer (minified bundles and binary junk have 1 MB lines). */
export const MAX_VIEW_LINE_CHARS = 4000;

function toNode(n: LedgerNode, available: boolean): OffloadNode {
  return { ...n, available };
}

export function listOffloads(paths: RefsPaths, limit: number): { nodes: OffloadNode[]; total: number } {
  const { nodes, total } = readLedgerNodes(paths.refsDir, limit);
  return { nodes: nodes.map((n) => toNode(n, findNodeFile(paths.refsDir, n.nodeId) !== undefined)), total };
}

function rawFile(paths: RefsPaths, nodeId: string): string {
  const file = findNodeFile(paths.refsDir, validateNodeId(nodeId));
  if (!file) throw new K0Error('NODE_NOT_FOUND', `no raw log for ${nodeId} in ${paths.refsDir}`);
  return file;
}

/** The node's summary and diagram, and line ranges around each error so the viewer can jump to them. */
export async function getOffload(paths: RefsPaths, nodeId: string): Promise<OffloadDetail> {
  const file = rawFile(paths, nodeId);
  const ledger = readLedgerNodes(paths.refsDir, Number.MAX_SAFE_INTEGER).nodes.find((n) => n.nodeId === nodeId);
  const s = await readOffloadSummary(file, nodeId, ledger?.reduction ?? 0);
  const node = toNode(
    ledger ?? { nodeId, task: '', ts: '', lines: s.lines, bytes: 0, tokensBefore: 0, tokensAfter: 0, reduction: 0, source: 'api' },
    true,
  );
  const ranges: LineRange[] = s.errors.map((e) => ({
    from: Math.max(1, e.line - 2),
    to: Math.min(s.lines, e.line + 12),
    label: `${e.code}${e.location ? ` at ${e.location}` : ''}`,
  }));
  return { node, mermaid: s.mermaid, summary: s.summary, totalLines: s.lines, ranges };
}

/**
 * Raw lines `from`..`to` (1-based, inclusive), ANSI escapes removed. Streams and stops at `to`, so a window near
 * the top of a 100 MB log costs a few kilobytes; the total comes from the stored summary when the read stopped early.
 */
export async function readLog(paths: RefsPaths, nodeId: string, from: number, to: number): Promise<LogLines> {
  if (to < from) throw new K0Error('INVALID_ARGUMENT', `line ${to} is before line ${from}`);
  if (to - from + 1 > MAX_LOG_RANGE) throw new K0Error('INVALID_ARGUMENT', `at most ${MAX_LOG_RANGE} lines per request`);
  const file = rawFile(paths, nodeId);
  const lines: string[] = [];
  let n = 0;
  let reachedEnd = true;
  const input = createReadStream(file);
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    n++;
    if (n >= from) lines.push(cut(stripAnsi(line)));
    if (n >= to) {
      reachedEnd = false;
      break;
    }
  }
  rl.close();
  input.destroy();
  const totalLines = reachedEnd ? n : Math.max(n, (await readOffloadSummary(file, nodeId, 0)).lines);
  return { nodeId, from, to: lines.length ? from + lines.length - 1 : from - 1, totalLines, lines };
}

function cut(line: string): string {
  return line.length > MAX_VIEW_LINE_CHARS ? `${line.slice(0, MAX_VIEW_LINE_CHARS)}… [+${line.length - MAX_VIEW_LINE_CHARS} chars]` : line;
}
