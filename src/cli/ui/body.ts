import type { IncomingMessage } from 'node:http';

/** Past this much, stop reading an oversized body and answer 413 while the client may still be sending. */
const DRAIN_LIMIT_FACTOR = 8;

export interface Body {
  text: string;
  /** Over the limit: the bytes were discarded, answer 413. */
  tooLarge: boolean;
}

/**
 * Reads a request body, keeping at most `limit` bytes in memory. An oversized body is still read to its end
 * (up to 8 × the limit) before the 413 goes out, so the client reliably gets the answer instead of a reset
 * connection; past that the 413 goes out at once and the connection is closed after it.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit * DRAIN_LIMIT_FACTOR) {
      req.resume();
      return resolve({ text: '', tooLarge: true });
    }
    const parts: Buffer[] = [];
    let total = 0;
    let settled = false;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total <= limit) parts.push(chunk);
      else if (total > limit * DRAIN_LIMIT_FACTOR && !settled) {
        settled = true;
        resolve({ text: '', tooLarge: true });
      }
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(total > limit ? { text: '', tooLarge: true } : { text: Buffer.concat(parts).toString('utf8'), tooLarge: false });
    });
    req.on('error', (err) => {
      if (!settled) reject(err);
      settled = true;
    });
  });
}
