import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '../fsutil/atomicWrite';
import { LogAnalyzer } from './analyzer';
import { readLogLines } from './logLines';
import { visibleLine } from './ansi';
import { renderMermaid } from './mermaid';
import { summaryFileName } from './store';
import { formatLocation, type LogAnalysis } from './types';
import { formatReductionPct } from '../../shared/format';

/**
 * What an offload kept, stored next to the raw log (`<task>_<node>.summary.json`): the summary the agent got,
 * its Mermaid diagram and where the errors are in the raw log. The console's offload viewer reads it; nodes
 * stored before it existed are analysed again from the raw log (same analyzer, same diagram).
 */
export interface OffloadSummary {
  node_id: string;
  summary: string;
  mermaid: string;
  lines: number;
  errors: { code: string; message: string; line: number; location?: string }[];
}

const MAX_SUMMARY_ERRORS = 50;

export function summaryRecord(nodeId: string, summary: string, mermaid: string, a: LogAnalysis): OffloadSummary {
  return {
    node_id: nodeId,
    summary,
    mermaid,
    lines: a.lines,
    errors: a.errors.slice(0, MAX_SUMMARY_ERRORS).map((e) => ({
      code: e.code,
      message: e.message.slice(0, 300),
      line: e.logLine,
      ...(e.location ? { location: formatLocation(e.location) } : {}),
    })),
  };
}

/** Written once per node (a deduplicated offload has the same content); a failure here never fails the offload. */
export function writeOffloadSummary(rawPath: string, record: OffloadSummary): void {
  const file = join(dirname(rawPath), summaryFileName(basename(rawPath)));
  if (!existsSync(file)) writeFileAtomic(file, JSON.stringify(record, null, 1) + '\n');
}

function isSummary(v: unknown, nodeId: string): v is OffloadSummary {
  const s = v as OffloadSummary;
  return !!s && s.node_id === nodeId && typeof s.summary === 'string' && typeof s.mermaid === 'string' && Number.isFinite(s.lines) && Array.isArray(s.errors);
}

/** The stored summary; undefined when the file is missing, torn or not this node's. */
export function readStoredSummary(rawPath: string, nodeId: string): OffloadSummary | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dirname(rawPath), summaryFileName(basename(rawPath))), 'utf8'));
    return isSummary(parsed, nodeId) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The stored summary, or one rebuilt from the raw log when the file is missing or not valid. */
export async function readOffloadSummary(rawPath: string, nodeId: string, reduction: number): Promise<OffloadSummary> {
  const stored = readStoredSummary(rawPath, nodeId);
  if (stored) return stored;
  const analyzer = new LogAnalyzer();
  for await (const batch of readLogLines(rawPath)) for (const line of batch) analyzer.push(visibleLine(line.text));
  const analysis = analyzer.finish();
  const mermaid = renderMermaid(analysis, nodeId);
  return summaryRecord(nodeId, renderSummary(mermaid, analysis, nodeId, formatPct(reduction)), mermaid, analysis);
}

/** The summary promises a saving, so a summary larger than its log reads 0.0%; the rounding rule is the shared one. */
export function formatPct(r: number): string {
  return formatReductionPct(Math.max(0, r));
}

/**
 * How the summary tells its reader to see the raw log. The wording belongs to the surface: an agent over MCP
 * calls a tool, a person at a terminal or in the editor runs a command. Core keeps the MCP wording as default.
 */
export type InspectHint = (nodeId: string) => string;
export const MCP_INSPECT_HINT: InspectHint = () => `Use 'inspect_log_node' to view raw stack frames.`;
export const CLI_INSPECT_HINT: InspectHint = (nodeId) => `Run \`k0maru inspect ${nodeId}\` to view raw stack frames (--grep, --lines to narrow).`;

/** The text an agent gets instead of the log: the diagram, the reduction, the primary error, the node id. */
export function renderSummary(mermaid: string, a: LogAnalysis, nodeId: string, pct: string, hint: InspectHint = MCP_INSPECT_HINT): string {
  const out = ['```mermaid', mermaid, '```', '', `✓ Log offloaded (${a.lines} lines, ${pct}% token reduction)`];
  const p = a.primary;
  if (p) {
    const where = p.location ? ` at ${formatLocation(p.location)}` : '';
    const msg = p.message.length > 160 ? `${p.message.slice(0, 159)}…` : p.message;
    out.push(`  Primary: [${p.code}] ${msg}${where}`);
    if (p.test) out.push(`  Failing test: ${p.test.length > 160 ? `${p.test.slice(0, 159)}…` : p.test}`);
    if (p.chain && p.chain.length > 1) {
      const links = p.chain.slice(0, 6).map((l) => `${l.code}${l.location ? ` at ${formatLocation(l.location)}` : ''}`);
      out.push(`  Chain (final first): ${links.join(' ← ')}${p.chain.length > 6 ? ' ← …' : ''}`);
    }
  }
  out.push(`  Reference ID: ${nodeId}`, `  ${hint(nodeId)}`);
  return out.join('\n');
}
