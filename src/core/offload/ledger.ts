import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_FILE, NODE_ID_RE, type GcLedgerEntry, type LedgerEntry } from './store';

export type AnyLedgerEntry = LedgerEntry | GcLedgerEntry;

const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * One ledger line → an entry, or undefined for a line that is not one (a crash mid-append, a hand edit, a
 * kind a newer version wrote). Every reader of the ledger goes through here.
 */
export function parseLedgerLine(line: string): AnyLedgerEntry | undefined {
  if (!line.trim()) return undefined;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || typeof v.ts !== 'string' || !num(v.tokens_before) || !num(v.tokens_after)) return undefined;
  if (v.kind === 'gc') return typeof v.session_id === 'string' ? (v as unknown as GcLedgerEntry) : undefined;
  if (v.kind !== undefined && v.kind !== 'offload') return undefined;
  return typeof v.node_id === 'string' && NODE_ID_RE.test(v.node_id) ? ({ ...v, kind: 'offload' } as unknown as LedgerEntry) : undefined;
}

/** One stored raw log as the views list it: the latest ledger entry for its node id. */
export interface LedgerNode {
  nodeId: string;
  task: string;
  ts: string;
  lines: number;
  bytes: number;
  tokensBefore: number;
  tokensAfter: number;
  reduction: number;
  source: string;
}

/** Reading more than this tail of the ledger is pointless for a list of the most recent nodes. */
const MAX_TAIL_BYTES = 2 * 1024 * 1024;

/** Offloaded nodes, most recent first, one row per node (a deduplicated re-offload refreshes its row). */
export function readLedgerNodes(refsDir: string, limit = 50): { nodes: LedgerNode[]; total: number } {
  const file = join(refsDir, LEDGER_FILE);
  if (!existsSync(file)) return { nodes: [], total: 0 };
  const size = statSync(file).size;
  const start = Math.max(0, size - MAX_TAIL_BYTES);
  const buf = Buffer.alloc(size - start);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, buf, 0, buf.length, start);
  } finally {
    closeSync(fd);
  }
  let text = buf.toString('utf8');
  // A tail read starts mid-line: drop the partial first line.
  if (start > 0) text = text.slice(text.indexOf('\n') + 1);
  const byNode = new Map<string, LedgerNode>();
  for (const line of text.split('\n')) {
    const e = parseLedgerLine(line);
    if (!e || e.kind === 'gc') continue;
    byNode.delete(e.node_id); // re-insert so Map order is "last seen"
    byNode.set(e.node_id, {
      nodeId: e.node_id,
      task: typeof e.task === 'string' ? e.task : '',
      ts: e.ts,
      lines: Number(e.lines) || 0,
      bytes: Number(e.bytes) || 0,
      tokensBefore: e.tokens_before,
      tokensAfter: e.tokens_after,
      reduction: Number(e.reduction) || 0,
      source: typeof e.source === 'string' ? e.source : 'api',
    });
  }
  return { nodes: [...byNode.values()].reverse().slice(0, limit), total: byNode.size };
}
