import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, relative } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createXXHash3 } from 'hash-wasm';
import { K0Error } from '../errors';
import { throwIfCancelled } from '../host/cancel';
import type { VaultPaths } from '../vault/paths';
import { LogAnalyzer } from './analyzer';
import { visibleLine } from './ansi';
import { renderMermaid } from './mermaid';
import { appendLedger, findNodeFile, sanitizeTaskName, type LedgerEntry } from './store';
import { CLI_INSPECT_HINT, formatPct, MCP_INSPECT_HINT, renderSummary, summaryRecord, writeOffloadSummary, type InspectHint } from './summaryFile';
import { countTokensSafe, TokenTally } from '../tokens/tally';
import type { LogAnalysis } from './types';

/** `k0maru offload` passes logs of up to 50 lines through; the MCP tool's contract says "more than 30 lines". */
export const CLI_OFFLOAD_THRESHOLD = 50;
export const MCP_OFFLOAD_THRESHOLD = 30;

/** A line longer than this is not kept whole: its head is analysed, the rest only counted and saved. */
const MAX_HELD_LINE = 64 * 1024;
/**
 * A log under the line threshold still comes back whole only while it is small: one 5 MB minified line or a
 * progress bar redrawn a million times on one line would otherwise reach the agent unchanged.
 */
export const MAX_PASSTHROUGH_BYTES = 64 * 1024;
const ANALYSED_HEAD = 4096;
const TEXT_CHUNK = 1 << 20;

export interface OffloadInput {
  /** The whole log as a string (MCP calls). */
  text?: string;
  /** Or a byte / string stream (CLI stdin, files): never held whole. */
  stream?: AsyncIterable<Uint8Array | string>;
  taskName?: string;
  /** Logs with at most this many lines come back unchanged (default 50). */
  threshold?: number;
  source?: LedgerEntry['source'];
  /**
   * How the summary says to see the raw log; the adapter picks it: 'tool' names the MCP tool (default, for
   * agents), 'command' the `k0maru inspect` command (CLI, editor), or any wording of its own.
   */
  inspectHint?: InspectHint | 'tool' | 'command';
  /** The caller withdrew (an MCP cancellation): checked while reading and before the raw log is renamed into place. */
  signal?: AbortSignal;
  /**
   * The caller needs a node for the raw text whatever the summary costs (distill points its playbook at it; GC
   * folds with threshold 0). Otherwise a log whose summary would not be smaller than itself comes back whole:
   * an offload must never cost the agent more tokens than the log it replaces.
   */
  keepNode?: boolean;
}

export interface OffloadResult {
  passthrough: boolean;
  /** What the agent should see: the log itself (passthrough) or the diagram and summary. */
  text: string;
  nodeId?: string;
  /** Project-relative path of the raw log. */
  rawFile?: string;
  lines: number;
  bytes: number;
  tokensBefore: number;
  tokensAfter: number;
  /** 1 − tokensAfter / tokensBefore, 0 for passthrough. */
  reduction: number;
  /** True when the same bytes were already stored: nothing new was written. */
  deduplicated: boolean;
  analysis: LogAnalysis;
  mermaid?: string;
}

async function* chunksOfText(text: string): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += TEXT_CHUNK) yield text.slice(i, i + TEXT_CHUNK);
}

/**
 * Offloads a log: streams it once, hashing the raw bytes (xxh3-64), counting tokens, analysing ANSI-stripped
 * lines and spilling the bytes to a temp file in `.k0maru/refs/` as soon as the threshold is passed. Memory is
 * bounded by the threshold's worth of bytes plus one 64 KB line, whatever the size of the log.
 */
export async function offloadLog(paths: Pick<VaultPaths, 'refsDir' | 'projectRoot'>, input: OffloadInput): Promise<OffloadResult> {
  if ((input.text === undefined) === (input.stream === undefined)) {
    throw new K0Error('INVALID_ARGUMENT', 'offload needs exactly one of text or stream');
  }
  const threshold = input.threshold ?? CLI_OFFLOAD_THRESHOLD;
  if (!Number.isInteger(threshold) || threshold < 0) throw new K0Error('INVALID_ARGUMENT', `threshold must be a non-negative integer, got ${threshold}`);
  const task = sanitizeTaskName(input.taskName);
  const source = input.stream ?? chunksOfText(input.text as string);
  throwIfCancelled(input.signal, 'offload');

  const hasher = await createXXHash3();
  hasher.init();
  const decoder = new StringDecoder('utf8');
  const analyzer = new LogAnalyzer();
  const tally = new TokenTally();

  let lines = 0;
  let bytes = 0;
  let tail = '';
  let overlongHead: string | undefined; // set while the current line is longer than MAX_HELD_LINE
  let held: Buffer[] | undefined = []; // raw bytes until the threshold is passed (needed for passthrough)
  let fd: number | undefined;
  let tmpPath: string | undefined;

  const spill = () => {
    mkdirSync(paths.refsDir, { recursive: true });
    tmpPath = join(paths.refsDir, `.offload-${randomBytes(6).toString('hex')}.tmp`);
    fd = openSync(tmpPath, 'wx', 0o644);
    for (const b of held ?? []) writeAll(fd, b);
    held = undefined;
  };
  const endLine = (newline: boolean) => {
    if (overlongHead !== undefined) {
      tally.pushFragment(tail + (newline ? '\n' : ''));
      analyzer.push(visibleLine(overlongHead));
    } else {
      tally.push(tail, newline);
      analyzer.push(visibleLine(tail));
    }
    tail = '';
    overlongHead = undefined;
    lines++;
    if (fd === undefined && lines > threshold) spill();
  };
  const addPiece = (piece: string) => {
    if (!piece) return;
    tail += piece;
    if (tail.length > MAX_HELD_LINE) {
      if (overlongHead === undefined) overlongHead = tail.slice(0, ANALYSED_HEAD);
      tally.pushFragment(tail);
      tail = '';
    }
  };
  const feed = (text: string) => {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      addPiece(text.slice(start, nl));
      endLine(true);
      start = nl + 1;
    }
    addPiece(text.slice(start));
  };

  try {
    for await (const chunk of source) {
      throwIfCancelled(input.signal, 'offload'); // a temp file already spilled is removed below
      const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      bytes += buf.length;
      hasher.update(buf);
      if (fd !== undefined) writeAll(fd, buf);
      else held!.push(buf);
      if (fd === undefined && bytes > MAX_PASSTHROUGH_BYTES) spill();
      feed(decoder.write(buf));
    }
    feed(decoder.end());
    if (tail || overlongHead !== undefined) endLine(false);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    if (tmpPath) rmSync(tmpPath, { force: true });
    throw err;
  }

  const analysis = analyzer.finish();
  const tokensBefore = tally.count;

  if (fd === undefined) {
    const text = Buffer.concat(held ?? []).toString('utf8');
    return { passthrough: true, text, lines, bytes, tokensBefore, tokensAfter: tokensBefore, reduction: 0, deduplicated: false, analysis };
  }
  closeSync(fd);

  if (input.signal?.aborted) {
    // Nothing is in place yet: the temp file goes, and the call ends as if it had never started.
    rmSync(tmpPath!, { force: true });
    throwIfCancelled(input.signal, 'offload');
  }
  const nodeId = `node_${hasher.digest('hex').slice(0, 8)}`;
  const mermaid = renderMermaid(analysis, nodeId);
  const hint = input.inspectHint === 'command' ? CLI_INSPECT_HINT : input.inspectHint === 'tool' ? MCP_INSPECT_HINT : input.inspectHint;
  const render = (pct: string) => renderSummary(mermaid, analysis, nodeId, pct, hint);
  // The summary states its own reduction: count once with a same-width placeholder, then fill in the figure.
  const draftTokens = countTokensSafe(render('99.9'));
  if (!input.keepNode && threshold > 0 && draftTokens >= tokensBefore && bytes <= MAX_PASSTHROUGH_BYTES) {
    // A short log (just over the threshold, few tokens) would grow: it comes back whole and nothing is stored.
    const text = readFileSync(tmpPath!, 'utf8');
    rmSync(tmpPath!, { force: true });
    return { passthrough: true, text, lines, bytes, tokensBefore, tokensAfter: tokensBefore, reduction: 0, deduplicated: false, analysis };
  }
  let rawPath = findNodeFile(paths.refsDir, nodeId);
  const deduplicated = rawPath !== undefined;
  if (rawPath) rmSync(tmpPath!, { force: true });
  else {
    rawPath = join(paths.refsDir, `${task}_${nodeId}.log`);
    renameSync(tmpPath!, rawPath);
  }

  const pct = formatPct(1 - draftTokens / Math.max(1, tokensBefore));
  const text = render(pct);
  const tokensAfter = countTokensSafe(text);
  const reduction = tokensBefore > 0 ? 1 - tokensAfter / tokensBefore : 0;
  try {
    writeOffloadSummary(rawPath, summaryRecord(nodeId, text, mermaid, analysis));
  } catch {
    // The viewer rebuilds a missing summary from the raw log; the agent's answer must not fail for it.
  }

  appendLedger(paths.refsDir, {
    kind: 'offload',
    ts: new Date().toISOString(),
    node_id: nodeId,
    task,
    lines,
    bytes,
    tokens_before: tokensBefore,
    tokens_after: tokensAfter,
    reduction: Math.round(reduction * 10000) / 10000,
    source: input.source ?? 'api',
    deduplicated,
  });

  return {
    passthrough: false,
    text,
    nodeId,
    rawFile: relative(paths.projectRoot, rawPath),
    lines,
    bytes,
    tokensBefore,
    tokensAfter,
    reduction,
    deduplicated,
    analysis,
    mermaid,
  };
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}
