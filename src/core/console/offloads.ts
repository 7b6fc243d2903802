import { statSync } from 'node:fs';
import type { LineRange, LogLines, OffloadDetail, OffloadNode } from '../../shared/protocol';
import { MAX_LOG_RANGE } from '../../shared/protocol';
import { K0Error } from '../errors';
import { stripAnsi } from '../offload/ansi';
import { readLedgerNodes, type LedgerNode } from '../offload/ledger';
import { readLogLines, type LineCheckpoint } from '../offload/logLines';
import { findNodeFile, validateNodeId } from '../offload/store';
import { readOffloadSummary, readStoredSummary } from '../offload/summaryFile';
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
 * Byte offsets of every CHECKPOINT_EVERY-th line of the raw logs a console has paged through, learnt while
 * reading, so the next window of a big log starts near its first line instead of at byte 0. Kept per service
 * (per console host), a few logs at most, and dropped when a file's size or mtime changes.
 */
export class LineCheckpoints {
  static readonly EVERY = 10_000;
  private static readonly MAX_FILES = 16;
  private readonly files = new Map<string, { stamp: string; points: LineCheckpoint[]; total?: number }>();

  nearest(file: string, stamp: string, line: number): LineCheckpoint {
    let best: LineCheckpoint = { byte: 0, line: 1 };
    for (const p of this.known(file, stamp)?.points ?? []) if (p.line <= line && p.line > best.line) best = p;
    return best;
  }

  learn(file: string, stamp: string, point: LineCheckpoint): void {
    const known = this.entry(file, stamp);
    if (!known.points.some((p) => p.line === point.line)) known.points.push(point);
  }

  /** The log's line count, once a read reached its end. */
  total(file: string, stamp: string): number | undefined {
    return this.known(file, stamp)?.total;
  }

  learnTotal(file: string, stamp: string, total: number): void {
    this.entry(file, stamp).total = total;
  }

  private known(file: string, stamp: string) {
    const known = this.files.get(file);
    return known && known.stamp === stamp ? known : undefined;
  }

  private entry(file: string, stamp: string) {
    let known = this.known(file, stamp);
    if (!known) {
      known = { stamp, points: [] };
      this.files.delete(file);
      this.files.set(file, known);
      if (this.files.size > LineCheckpoints.MAX_FILES) this.files.delete(this.files.keys().next().value!);
    }
    return known;
  }
}

/**
 * Raw lines `from`..`to` (1-based, inclusive, numbered as the offload numbered them), ANSI escapes removed.
 * Streams from the nearest known checkpoint and stops at `to` when the log's length is known (its stored summary,
 * or an earlier read to the end); otherwise reads on to the end once to count it, and remembers the count.
 */
export async function readLog(paths: RefsPaths, nodeId: string, from: number, to: number, checkpoints = new LineCheckpoints()): Promise<LogLines> {
  if (to < from) throw new K0Error('INVALID_ARGUMENT', `line ${to} is before line ${from}`);
  if (to - from + 1 > MAX_LOG_RANGE) throw new K0Error('INVALID_ARGUMENT', `at most ${MAX_LOG_RANGE} lines per request`);
  const file = rawFile(paths, nodeId);
  const st = statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}`;
  const knownTotal = readStoredSummary(file, nodeId)?.lines ?? checkpoints.total(file, stamp);
  const lines: string[] = [];
  let last = 0;
  let reachedEnd = true;
  reading: for await (const batch of readLogLines(file, checkpoints.nearest(file, stamp, from))) {
    for (const line of batch) {
      last = line.n;
      if (line.n % LineCheckpoints.EVERY === 1 && line.n > 1) checkpoints.learn(file, stamp, { byte: line.byte, line: line.n });
      if (line.n >= from && line.n <= to) lines.push(cut(stripAnsi(line.text)));
      if (line.n >= to && knownTotal !== undefined) {
        reachedEnd = false;
        break reading;
      }
    }
  }
  if (reachedEnd) checkpoints.learnTotal(file, stamp, last);
  const totalLines = reachedEnd ? last : Math.max(last, knownTotal!);
  return { nodeId, from, to: lines.length ? from + lines.length - 1 : from - 1, totalLines, lines };
}

function cut(line: string): string {
  return line.length > MAX_VIEW_LINE_CHARS ? `${line.slice(0, MAX_VIEW_LINE_CHARS)}… [+${line.length - MAX_VIEW_LINE_CHARS} chars]` : line;
}
