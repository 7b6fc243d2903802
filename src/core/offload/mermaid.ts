import type { LogAnalysis, Phase } from './types';
import { formatLocation } from './types';

/** The seed promises a diagram of at most 15 lines; the renderer enforces it rather than trusting its inputs. */
export const MAX_DIAGRAM_LINES = 15;

const PHASE_STATE: Record<Phase, string> = { compile: 'Compilation', test: 'Tests', run: 'Runtime' };

/** Mermaid transition labels end at the line; quotes, semicolons, braces and arrows confuse its parser. */
function label(s: string, max = 90): string {
  const clean = s
    .replace(/-->/g, '→')
    .replace(/:{2,}/g, ':') // Rust paths (core::cell) — a double colon ends the label for Mermaid
    .replace(/[;#{}<>"`[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
  // A label starting or ending with ':' is read by Mermaid as another description separator and fails to parse.
  return cut.replace(/^[\s:]+|[\s:]+$/g, '') || '-';
}

export function nodeStateName(nodeId: string): string {
  return `Node_${nodeId.slice('node_'.length)}`;
}

/**
 * Renders the analysis as a `stateDiagram-v2`: phases in the order they happened, the primary error with its
 * code, the root file:line, the other error codes with counts, and the node that holds the raw log.
 */
export function renderMermaid(a: LogAnalysis, nodeId: string): string {
  const node = nodeStateName(nodeId);
  const out = ['stateDiagram-v2', '    direction TB'];
  const phases = a.phases.length ? a.phases : (['run'] as Phase[]);
  let prev = '[*]';
  for (const p of phases) {
    let note = '';
    if (p === 'test' && (a.tests.failed || a.tests.passed)) note = `: ${a.tests.passed} passed, ${a.tests.failed} failed`;
    out.push(`    ${prev} --> ${PHASE_STATE[p]}${prev === '[*]' ? '' : note}`);
    prev = PHASE_STATE[p];
  }
  const body: string[] = [];
  const primary = a.primary;
  if (primary) {
    const chain = primary.chain && primary.chain.length > 1 ? primary.chain.map((l) => l.code) : [];
    const msg = primary.message.includes(primary.code) ? primary.message : `${primary.code} ${primary.message}`;
    body.push(`    ${prev} --> ErrorDetected: ${label(msg)}`);
    let last = 'ErrorDetected';
    if (primary.location) {
      body.push(`    ErrorDetected --> RootCause: ${label(formatLocation(primary.location), 120)}`);
      last = 'RootCause';
    }
    // A chain gets its own line (final exception first): the message above has no room left for it.
    if (chain.length) body.push(`    ErrorDetected --> ErrorDetected: chain ${label(chain.join(' ← '))}`);
    const others = Object.entries(a.codeCounts)
      .filter(([code]) => code !== primary.code && code !== 'build-failed' && !chain.includes(code))
      .sort((x, y) => y[1] - x[1])
      .slice(0, 4)
      .map(([code, n]) => (n > 1 ? `${code} x${n}` : code));
    if (others.length) body.push(`    ErrorDetected --> ErrorDetected: also ${label(others.join(', '))}`);
    const counts = `${a.errorCount} error${a.errorCount === 1 ? '' : 's'}, ${a.warningCount} warning${a.warningCount === 1 ? '' : 's'}`;
    body.push(`    ${last} --> ${node}: ${a.lines} lines offloaded, ${counts}`);
  } else {
    body.push(`    ${prev} --> ${node}: ${a.lines} lines offloaded, no error found, ${a.warningCount} warnings`);
  }
  body.push(`    ${node} --> [*]`);
  // Never exceed the cap: drop middle phase transitions first, the error, root and node lines matter most.
  while (out.length + body.length > MAX_DIAGRAM_LINES && out.length > 3) out.splice(3, 1);
  return [...out, ...body].slice(0, MAX_DIAGRAM_LINES).join('\n');
}
