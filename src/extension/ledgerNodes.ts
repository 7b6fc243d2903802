import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_FILE, type LedgerEntry } from '../core/offload/store';

/** One stored raw log as the Offloads view shows it: the latest ledger entry for its node id. */
export interface LedgerNode {
  nodeId: string;
  task: string;
  lines: number;
  tokensBefore: number;
  tokensAfter: number;
  reduction: number;
  ts: string;
}

/** Reading more than this tail of the ledger is pointless for a view that lists the most recent nodes. */
const MAX_TAIL_BYTES = 2 * 1024 * 1024;

/** Most recent first, one row per node (a deduplicated re-offload refreshes its row). Bad lines are skipped. */
export function readLedgerNodes(refsDir: string, limit = 50): LedgerNode[] {
  const file = join(refsDir, LEDGER_FILE);
  if (!existsSync(file)) return [];
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
    if (!line.trim()) continue;
    let e: LedgerEntry;
    try {
      e = JSON.parse(line) as LedgerEntry;
    } catch {
      continue;
    }
    if (!e || typeof e.node_id !== 'string') continue;
    byNode.delete(e.node_id); // re-insert so Map order is "last seen"
    byNode.set(e.node_id, {
      nodeId: e.node_id,
      task: typeof e.task === 'string' ? e.task : '',
      lines: Number(e.lines) || 0,
      tokensBefore: Number(e.tokens_before) || 0,
      tokensAfter: Number(e.tokens_after) || 0,
      reduction: Number(e.reduction) || 0,
      ts: String(e.ts ?? ''),
    });
  }
  return [...byNode.values()].reverse().slice(0, limit);
}
