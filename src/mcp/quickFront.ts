import { PassThrough, type Readable } from 'node:stream';

/**
 * The MCP server's first answers without the SDK. A client's first two questions, `initialize` and `tools/list`,
 * have answers fixed at build time (the SDK's own, captured: staticAnswersGen.ts), while loading the SDK and zod
 * (~1.4 MB of JavaScript) was most of what a spawn cost before `tools/list` came back. So the front reads stdin
 * line by line (split as the SDK's ReadBuffer splits) and answers those two itself, byte for byte as the SDK
 * would, as long as every message is one it can judge with certainty. The first message that is anything else —
 * a tool call, a ping, bad JSON, an unusual field — hands the stream over: the SDK server starts, gets the
 * `initialize` messages seen so far again (under private ids, their answers dropped, so its state is what it
 * would have been), then that message and everything after it, unchanged. Errors and odd input therefore get the
 * SDK's own handling; the front only ever answers the two questions whose answers cannot differ.
 */

export interface ModeAnswers {
  capabilities: Record<string, unknown>;
  serverName: string;
  instructions?: string;
  toolsList: { tools: ({ name: string } & Record<string, unknown>)[] } & Record<string, unknown>;
}

export interface StaticAnswers {
  latestProtocolVersion: string;
  supportedProtocolVersions: string[];
  full: ModeAnswers;
  sidecar: ModeAnswers;
}

/** Ids of the replayed `initialize` requests; the SDK's answers to them are dropped (replayFilter). */
export const REPLAY_ID_PREFIX = 'k0maru-replay-';

export interface QuickFrontOptions {
  answers: ModeAnswers;
  latestProtocolVersion: string;
  supportedProtocolVersions: string[];
  version: string;
  /** Writes one serialized message (with its newline) to the client. */
  write(line: string): void;
  /** Starts the SDK server on `input`, which holds the replayed messages and then the rest of stdin. */
  handOver(input: Readable): void;
  /** After the first `tools/list` answer: a good moment to load the SDK in the background. */
  onToolsListed?(): void;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const onlyKeys = (o: Json, allowed: string[]) => Object.keys(o).every((k) => allowed.includes(k));
const isId = (v: unknown) => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
const isEmptyObject = (v: unknown) => isObject(v) && Object.keys(v).length === 0;

/**
 * `initialize` params the front may answer: only shapes the SDK certainly accepts (InitializeRequestParamsSchema);
 * anything richer (`_meta`, icons, task capabilities, …) goes to the SDK, which decides.
 */
export function plainInitializeParams(p: unknown): p is { protocolVersion: string } {
  if (!isObject(p) || !onlyKeys(p, ['protocolVersion', 'capabilities', 'clientInfo'])) return false;
  if (typeof p.protocolVersion !== 'string') return false;
  const info = p.clientInfo;
  if (!isObject(info) || !onlyKeys(info, ['name', 'version', 'title']) || typeof info.name !== 'string' || typeof info.version !== 'string') return false;
  if (info.title !== undefined && typeof info.title !== 'string') return false;
  const caps = p.capabilities;
  if (!isObject(caps) || !onlyKeys(caps, ['roots', 'sampling', 'elicitation', 'experimental'])) return false;
  if (caps.roots !== undefined && !(isObject(caps.roots) && onlyKeys(caps.roots, ['listChanged']) && (caps.roots.listChanged === undefined || typeof caps.roots.listChanged === 'boolean'))) return false;
  if (caps.sampling !== undefined && !isEmptyObject(caps.sampling)) return false;
  if (caps.elicitation !== undefined && !isEmptyObject(caps.elicitation)) return false;
  if (caps.experimental !== undefined && !(isObject(caps.experimental) && Object.values(caps.experimental).every(isObject))) return false;
  return true;
}

/** `tools/list` params the front may answer: none, `{}` or a string cursor (the server has one page). */
function plainListParams(p: unknown): boolean {
  return p === undefined || (isObject(p) && onlyKeys(p, ['cursor']) && (p.cursor === undefined || typeof p.cursor === 'string'));
}

export class QuickFront {
  private pending: Buffer = Buffer.alloc(0);
  private replay: string[] = [];
  private handed: PassThrough | undefined;
  private ended = false;
  private readonly listAnswer: [string, string];
  private listed = false;

  constructor(private readonly o: QuickFrontOptions) {
    // The SDK's Protocol sends `{ result, jsonrpc, id }` serialized by JSON.stringify: the same here.
    this.listAnswer = [`{"result":${JSON.stringify(o.answers.toolsList)},"jsonrpc":"2.0","id":`, '}\n'];
  }

  /** True once the SDK has the stream. */
  get handedOver(): boolean {
    return !!this.handed;
  }

  push(chunk: Buffer): void {
    if (this.handed) {
      this.handed.write(chunk);
      return;
    }
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      const nl = this.pending.indexOf(10);
      if (nl < 0) return;
      const line = this.pending.toString('utf8', 0, nl).replace(/\r$/, '');
      if (!this.answer(line)) {
        this.handOver();
        return;
      }
      this.pending = this.pending.subarray(nl + 1);
    }
  }

  /**
   * stdin ended: the SDK's input ends too. Not handed over yet, nothing is left to answer (a last line without a
   * newline is one the SDK's ReadBuffer never reads either).
   */
  end(): void {
    this.ended = true;
    this.handed?.end();
  }

  /** Hands the stream to the SDK now (a tool call came, or the caller wants it loaded). */
  handOver(): void {
    if (this.handed) return;
    const input = new PassThrough();
    this.handed = input;
    for (const l of this.replay) input.write(l + '\n');
    if (this.pending.length) input.write(this.pending);
    this.pending = Buffer.alloc(0);
    if (this.ended) input.end();
    this.o.handOver(input);
  }

  private answer(line: string): boolean {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return false;
    }
    if (!isObject(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string' || !onlyKeys(msg, ['jsonrpc', 'id', 'method', 'params'])) return false;
    if (msg.method === 'notifications/initialized' && !('id' in msg) && (msg.params === undefined || isEmptyObject(msg.params))) {
      this.replay.push(line);
      return true;
    }
    if (!isId(msg.id)) return false;
    if (msg.method === 'initialize' && plainInitializeParams(msg.params)) {
      const requested = msg.params.protocolVersion;
      const protocolVersion = this.o.supportedProtocolVersions.includes(requested) ? requested : this.o.latestProtocolVersion;
      const a = this.o.answers;
      const result = { protocolVersion, capabilities: a.capabilities, serverInfo: { name: a.serverName, version: this.o.version }, ...(a.instructions && { instructions: a.instructions }) };
      this.o.write(JSON.stringify({ result, jsonrpc: '2.0', id: msg.id }) + '\n');
      this.replay.push(JSON.stringify({ ...msg, id: `${REPLAY_ID_PREFIX}${this.replay.length}` }));
      return true;
    }
    if (msg.method === 'tools/list' && plainListParams(msg.params)) {
      this.o.write(this.listAnswer[0] + JSON.stringify(msg.id) + this.listAnswer[1]);
      if (!this.listed) {
        this.listed = true;
        this.o.onToolsListed?.();
      }
      return true;
    }
    return false;
  }
}

/**
 * Whether a line the SDK writes answers a replayed `initialize` (already answered by the front): such lines are
 * dropped. Cheap for the usual large tool results (a substring test before any parse).
 */
export function isReplayAnswer(line: string): boolean {
  if (!line.includes(REPLAY_ID_PREFIX)) return false;
  try {
    const m = JSON.parse(line) as { id?: unknown; method?: unknown };
    return m.method === undefined && typeof m.id === 'string' && m.id.startsWith(REPLAY_ID_PREFIX);
  } catch {
    return false;
  }
}
