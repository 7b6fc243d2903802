/** Public surface of the offload capability (CLI, MCP, GC and distill import from here). */
export { offloadLog, CLI_OFFLOAD_THRESHOLD, MCP_OFFLOAD_THRESHOLD, type OffloadInput, type OffloadResult } from './offload';
export { inspectLogNode, DEFAULT_INSPECT_MAX_LINES, type InspectInput, type InspectResult } from './inspect';
export { analyzeText, LogAnalyzer } from './analyzer';
export { stripAnsi, visibleLine } from './ansi';
export { isLibraryPath } from './frames';
export { renderMermaid, MAX_DIAGRAM_LINES } from './mermaid';
export { validateNodeId, findNodeFile, appendLedger, NODE_ID_RE, LEDGER_FILE, type LedgerEntry, type GcLedgerEntry } from './store';
export { countTokensSafe } from '../tokens/tally';
export { formatLocation, type LogAnalysis, type LogError, type Location, type Runtime, type Phase, type ErrorKind } from './types';
export { parseLedgerLine, readLedgerNodes, type AnyLedgerEntry, type LedgerNode } from './ledger';
export { readOffloadSummary, CLI_INSPECT_HINT, MCP_INSPECT_HINT, type InspectHint, type OffloadSummary } from './summaryFile';
