import { Transform, type TransformCallback } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorResult } from './result';
import { K0Error } from '../core/errors';

/** Bytes kept of an oversized line's start and end: enough to find its `"method"` and its `"id"`. */
const PEEK = 1024;

/**
 * Sits between stdin and the SDK's stdio transport. A message (one line) over `limit` bytes is never held: its
 * bytes are counted and dropped as they arrive, and the caller gets an answer instead of silence — a
 * FILE_TOO_LARGE tool error for a `tools/call`, a JSON-RPC "invalid request" for anything else. Without it the
 * transport would buffer up to its cap, throw, and then try to parse the rest of the line as a new message.
 * Lines under the limit are passed on whole, in one chunk (the transport concatenates per chunk).
 */
export class OversizeLineFilter extends Transform {
  private held: Buffer[] = [];
  private heldLen = 0;
  private dropping = false;
  private dropped = 0;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(
    private readonly limit: number,
    private readonly reply: (message: JSONRPCMessage) => void,
    private readonly log: (message: string) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl < 0 ? chunk.length : nl + 1);
      if (this.dropping) this.keepTail(piece);
      else {
        this.held.push(piece);
        this.heldLen += piece.length;
        if (this.heldLen > this.limit) {
          const all = Buffer.concat(this.held);
          this.head = all.subarray(0, PEEK);
          this.tail = Buffer.from(all.subarray(Math.max(0, all.length - PEEK)));
          this.dropped = all.length;
          this.dropping = true;
          this.held = [];
          this.heldLen = 0;
        }
      }
      if (nl < 0) break;
      if (this.dropping) this.answerOversize();
      else if (this.heldLen) this.push(this.held.length === 1 ? this.held[0] : Buffer.concat(this.held));
      this.held = [];
      this.heldLen = 0;
      this.dropping = false;
      start = nl + 1;
      if (start >= chunk.length) break;
    }
    cb();
  }

  override _flush(cb: TransformCallback): void {
    if (this.dropping) this.answerOversize();
    else if (this.heldLen) this.push(Buffer.concat(this.held));
    cb();
  }

  private keepTail(piece: Buffer): void {
    this.dropped += piece.length;
    this.tail = Buffer.from(Buffer.concat([this.tail, piece]).subarray(-PEEK));
  }

  private answerOversize(): void {
    const head = this.head.toString('utf8');
    const tail = this.tail.toString('utf8');
    // The SDK client writes `id` after `params`: look in the tail first.
    const idRe = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/g;
    const ids = [...tail.matchAll(idRe)];
    const idText = ids.length ? ids[ids.length - 1][1] : head.match(/"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/)?.[1];
    const mb = (this.dropped / 1024 / 1024).toFixed(1);
    const message = `message of ${mb} MB is over the ${(this.limit / 1024 / 1024).toFixed(0)} MB limit of this server; it was not read`;
    this.log(`dropped an oversized message (${this.dropped} bytes${idText ? `, id ${idText}` : ''})`);
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
    this.dropped = 0;
    if (idText === undefined) return; // a notification: nobody waits for an answer
    const id = JSON.parse(idText) as string | number;
    if (/"method"\s*:\s*"tools\/call"/.test(head)) {
      const result = errorResult(new K0Error('FILE_TOO_LARGE', message));
      this.reply({ jsonrpc: '2.0', id, result } as JSONRPCMessage);
    } else {
      this.reply({ jsonrpc: '2.0', id, error: { code: -32600, message: `FILE_TOO_LARGE: ${message}` } } as JSONRPCMessage);
    }
  }
}
