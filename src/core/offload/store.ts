import { appendFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { K0Error } from '../errors';

/** `node_` + the first 8 hex digits of the xxh3-64 of the raw bytes. */
export const NODE_ID_RE = /^node_[0-9a-f]{8}$/;
export const LEDGER_FILE = 'ledger.jsonl';

export function validateNodeId(id: unknown): string {
  if (typeof id !== 'string' || !NODE_ID_RE.test(id)) {
    throw new K0Error('INVALID_ARGUMENT', `invalid node id ${JSON.stringify(String(id).slice(0, 80))}: expected node_ followed by 8 hex digits (e.g. node_1a2b3c4d)`);
  }
  return id;
}

/** Task names become part of a file name: keep them to a safe alphabet and a sane length. */
export function sanitizeTaskName(task: string | undefined): string {
  const t = (task ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 48);
  return t || 'log';
}

/** Finds the raw file of a node whatever task prefix it was saved under. */
export function findNodeFile(refsDir: string, nodeId: string): string | undefined {
  validateNodeId(nodeId);
  if (!existsSync(refsDir)) return undefined;
  const suffix = `_${nodeId}.log`;
  const hit = readdirSync(refsDir)
    .filter((n) => n.endsWith(suffix) && !n.startsWith('.'))
    .sort()[0];
  return hit ? join(refsDir, hit) : undefined;
}

/** One offload: the raw log stored as a node, the summary the agent got instead. */
export interface LedgerEntry {
  /** Absent in ledgers written before GC runs were recorded: every such line is an offload. */
  kind?: 'offload';
  ts: string;
  node_id: string;
  task: string;
  lines: number;
  bytes: number;
  tokens_before: number;
  tokens_after: number;
  reduction: number;
  /** Who offloaded: the CLI, an MCP tool call, or the session GC. */
  source: 'cli' | 'mcp' | 'gc' | 'api';
  deduplicated: boolean;
}

/**
 * One context GC run over an agent trajectory. Its figures include the tool outputs it offloaded (those also
 * have their own `offload` lines with source 'gc', which the scoreboard therefore does not add again). A session
 * collected again later replaces its earlier run on the scoreboard: the latest run says what the session saves.
 */
export interface GcLedgerEntry {
  kind: 'gc';
  ts: string;
  session_id: string;
  turns_before: number;
  turns_after: number;
  tokens_before: number;
  tokens_after: number;
  reduction: number;
  source: 'gc';
}

/** The file that keeps what an offload kept (summary, Mermaid, error lines) next to its raw log. */
export function summaryFileName(rawFileName: string): string {
  return rawFileName.replace(/\.log$/, '.summary.json');
}

/**
 * One JSON object per line, appended with O_APPEND in a single write: concurrent writers (CLI and MCP server
 * at once) cannot interleave inside a line because each entry is far below the pipe/filesystem atomic size.
 */
export function appendLedger(refsDir: string, entry: LedgerEntry | GcLedgerEntry): void {
  mkdirSync(refsDir, { recursive: true });
  appendFileSync(join(refsDir, LEDGER_FILE), JSON.stringify(entry) + '\n', { encoding: 'utf8', flag: 'a' });
}
