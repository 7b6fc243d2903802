import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Where to start reading: a byte offset known to begin line `line` (1-based). */
export interface LineCheckpoint {
  byte: number;
  line: number;
}

export interface LogLine {
  /** 1-based, counted the way the offload engine counts: one line per '\n'. */
  n: number;
  /** The line without its '\n' (and without a '\r' right before it). A progress bar's inner '\r's stay. */
  text: string;
  /** Byte offset where the line starts (for checkpoints). */
  byte: number;
}

/**
 * The raw log's lines as the offload engine numbered them. Not node:readline: it also breaks lines at a lone
 * '\r', so a log with progress bars (cargo, npm, pip) would be numbered differently from the analysis, the
 * ledger and `inspect`'s ranges. Streams, one batch of lines per 64 KiB read (an await per line would double
 * the time on a million-line log); a caller that has what it needs just stops iterating.
 */
export async function* readLogLines(file: string, from: LineCheckpoint = { byte: 0, line: 1 }): AsyncGenerator<LogLine[]> {
  const decoder = new StringDecoder('utf8');
  let n = from.line;
  let byte = from.byte;
  let pending = '';
  let pendingBytes = 0;
  for await (const chunk of createReadStream(file, { start: from.byte, highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>) {
    const batch: LogLine[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const text = pending + decoder.write(chunk.subarray(start, nl + 1));
      const lineBytes = pendingBytes + (nl + 1 - start);
      batch.push({ n, text: text.endsWith('\r\n') ? text.slice(0, -2) : text.slice(0, -1), byte });
      n++;
      byte += lineBytes;
      pending = '';
      pendingBytes = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      pending += decoder.write(chunk.subarray(start));
      pendingBytes += chunk.length - start;
    }
    if (batch.length) yield batch;
  }
  pending += decoder.end();
  if (pending) yield [{ n, text: pending.endsWith('\r') ? pending.slice(0, -1) : pending, byte }];
}
