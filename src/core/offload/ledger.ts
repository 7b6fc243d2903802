import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LEDGER_FILE, type LedgerEntry } from './store';

export interface LedgerSummary {
  offloads: number;
  /** Distinct raw logs stored (deduplicated offloads reuse a node). */
  nodes: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  /** 1 − after / before over all offloads. */
  reduction: number;
  bySource: Record<string, { offloads: number; tokensSaved: number }>;
  first?: string;
  last?: string;
  /** Lines that were not valid ledger entries (a crash mid-append, a hand edit): skipped, counted. */
  skipped: number;
}

function isEntry(v: unknown): v is LedgerEntry {
  const e = v as LedgerEntry;
  return !!e && typeof e === 'object' && typeof e.node_id === 'string' && Number.isFinite(e.tokens_before) && Number.isFinite(e.tokens_after);
}

/**
 * Reads `.k0maru/refs/ledger.jsonl` for the token scoreboard, streaming (the ledger only grows). Tolerant:
 * a bad line is skipped and counted, never fatal.
 */
export async function summarizeLedger(refsDir: string): Promise<LedgerSummary> {
  const s: LedgerSummary = { offloads: 0, nodes: 0, tokensBefore: 0, tokensAfter: 0, tokensSaved: 0, reduction: 0, bySource: {}, skipped: 0 };
  const file = join(refsDir, LEDGER_FILE);
  if (!existsSync(file)) return s;
  const nodes = new Set<string>();
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    let e: unknown;
    try {
      e = JSON.parse(line);
    } catch {
      s.skipped++;
      continue;
    }
    if (!isEntry(e)) {
      s.skipped++;
      continue;
    }
    s.offloads++;
    nodes.add(e.node_id);
    s.tokensBefore += e.tokens_before;
    s.tokensAfter += e.tokens_after;
    const src = (s.bySource[e.source] ??= { offloads: 0, tokensSaved: 0 });
    src.offloads++;
    src.tokensSaved += e.tokens_before - e.tokens_after;
    s.first ??= e.ts;
    s.last = e.ts;
  }
  s.nodes = nodes.size;
  s.tokensSaved = s.tokensBefore - s.tokensAfter;
  s.reduction = s.tokensBefore > 0 ? s.tokensSaved / s.tokensBefore : 0;
  return s;
}
