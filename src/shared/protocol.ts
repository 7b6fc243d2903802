/**
 * The console protocol: every message between the console front-end (webview/) and its two hosts — the VS Code
 * webview host (src/extension/console/) and `k0maru ui` (src/cli/ui/) — is one of the unions below, and each
 * side validates what it receives with these schemas before using it. Nothing here imports vscode or node:
 * the page bundles this file.
 *
 * Flow: the page sends `ready`; the host answers `hello` (protocol version, host kind, vault name). Then the page
 * sends `request`s with increasing ids; the host answers each with exactly one `response` carrying the same id
 * and the same method (`ok: false` with a code from the closed error list when it failed). The host may push
 * `event`s at any time (the vault or the ledger changed) — the page re-asks what it shows — and a fresh `hello`
 * when what it said changed (a vault was opened, the workspace trusted).
 */
import { z } from 'zod';
import { ERROR_CODES } from './errorCodes';

export { PROTOCOL_VERSION } from './protocolVersion';

export const RECALL_MODES = ['hybrid', 'bm25', 'vector'] as const;
/** Fusion presets the search debugger can compare (the same names as `k0maru recall --fusion`). */
export const FUSION_PRESETS = ['default', 'rrf', 'rrf+boost', 'wrrf', 'blend', 'rescue'] as const;
export const MAX_QUERY_CHARS = 2000;
export const MAX_LOG_RANGE = 2000;

const nodeId = z.string().regex(/^node_[0-9a-f]{8}$/, 'a node id is node_ followed by 8 hex digits');
/** A vault-relative note path as the index stores it; the host still resolves it safely. */
const notePath = z.string().min(1).max(1024);

// ---------------------------------------------------------------------------------------------- requests

export const SearchParams = z.object({
  query: z.string().trim().min(1).max(MAX_QUERY_CHARS),
  mode: z.enum(RECALL_MODES),
  fusion: z.enum(FUSION_PRESETS),
  limit: z.number().int().min(1).max(50),
});

export const PriceTier = z.object({
  /** Shown as the row's name, e.g. "Frontier". */
  name: z.string().trim().min(1).max(60),
  /** Which models the tier stands for, free text. */
  models: z.string().max(200),
  /** US dollars per million input tokens: saved context is input the model no longer reads. */
  usdPerMillionInput: z.number().finite().min(0).max(10_000),
});
export type PriceTier = z.infer<typeof PriceTier>;

export const ConsoleRequest = z.discriminatedUnion('method', [
  z.object({ method: z.literal('search'), params: SearchParams }),
  /** VS Code opens the editor at the line; the browser host returns the Markdown for the page to render. */
  z.object({ method: z.literal('openNote'), params: z.object({ path: notePath, line: z.number().int().min(1).optional() }) }),
  z.object({ method: z.literal('listOffloads'), params: z.object({ limit: z.number().int().min(1).max(500) }) }),
  z.object({ method: z.literal('getOffload'), params: z.object({ nodeId }) }),
  /** Raw log lines, 1-based inclusive, at most MAX_LOG_RANGE per call. */
  z.object({ method: z.literal('readLog'), params: z.object({ nodeId, from: z.number().int().min(1), to: z.number().int().min(1) }) }),
  z.object({ method: z.literal('scoreboard'), params: z.object({}) }),
  z.object({ method: z.literal('savePrices'), params: z.object({ tiers: z.array(PriceTier).min(1).max(12) }) }),
  /** What the host is doing in the background (the header's embedding progress). */
  z.object({ method: z.literal('status'), params: z.object({}) }),
]);
export type ConsoleRequest = z.infer<typeof ConsoleRequest>;
export type ConsoleMethod = ConsoleRequest['method'];
export type ParamsOf<M extends ConsoleMethod> = Extract<ConsoleRequest, { method: M }>['params'];

export const ClientMessage = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ready'), protocol: z.number().int() }),
  z.object({ kind: z.literal('request'), id: z.number().int().min(0), request: ConsoleRequest }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

// ---------------------------------------------------------------------------------------------- results

/**
 * A note whose anchored code changed since the note was last true (issue #18; core: src/core/stale/types.ts
 * StaleInfo). `reason` is the sentence a person can act on, `since` the abbreviated base commit, `base` in full.
 */
export const StaleMark = z.object({
  reason: z.string(),
  since: z.string(),
  base: z.string(),
  /** Each stale anchor with its own reason (the first one is `reason`). */
  anchors: z.array(z.object({ anchor: z.string(), path: z.string(), reason: z.string() })),
});
export type StaleMark = z.infer<typeof StaleMark>;

/** Passages with a vector / all passages of the vault, for the embedding model in use. */
export const VectorCoverage = z.object({ embedded: z.number().int().min(0), passages: z.number().int().min(0) });
export type VectorCoverage = z.infer<typeof VectorCoverage>;

export const SearchHit = z.object({
  path: z.string(),
  title: z.string(),
  tier: z.string(),
  heading: z.string(),
  line: z.number(),
  snippet: z.string(),
  superseded: z.boolean(),
  /** A template note (vault/templateNotes.ts), demoted like a superseded one. */
  template: z.boolean().optional(),
  /** The score the hit was ranked by (fused in hybrid, after the superseded demotion). */
  score: z.number(),
  bm25: z.object({ rank: z.number(), score: z.number() }).optional(),
  vector: z.object({ rank: z.number(), cosine: z.number() }).optional(),
  /** The fused score before the graph boost (hybrid only). */
  fused: z.number().optional(),
  /** Graph boost added to this hit (0 or absent: none). */
  boost: z.number().optional(),
  /** Present when the note is stale: its anchored code changed since its base. */
  stale: StaleMark.optional(),
  /** What a stale note's score was multiplied by (recall's documented demotion), when it was demoted. */
  staleFactor: z.number().optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchResult = z.object({
  query: z.string(),
  mode: z.enum(RECALL_MODES),
  /** The mode that answered: hybrid falls back to bm25 without a model. */
  effectiveMode: z.enum(RECALL_MODES),
  /**
   * effectiveMode as a person should read it (core's RecallResult.effectiveModeLabel): "hybrid (partial: 41 % of
   * passages)" while vectors are missing, never plain "hybrid" over a mostly empty vector index.
   */
  effectiveModeLabel: z.string(),
  /** How much of the vault the vector channel covered for this answer (absent: no vector channel answered). */
  coverage: VectorCoverage.optional(),
  /** What the fusion preset means, e.g. "RRF k=60, 0.5/0.5, graph boost +0.05". */
  fusion: z.string(),
  hits: z.array(SearchHit),
  warnings: z.array(z.string()),
  pendingVectors: z.number().optional(),
  /** The core's recall alone. The page shows the time the person waited (it measures that itself) beside it. */
  tookMs: z.number(),
  /** The host's whole answer: the scan before it, waiting for the model and embedding within the budget, recall. */
  hostMs: z.number().optional(),
});
export type SearchResult = z.infer<typeof SearchResult>;

export const OpenNoteResult = z.discriminatedUnion('shown', [
  /** The host showed the note itself (VS Code editor). */
  z.object({ shown: z.literal('editor'), path: z.string() }),
  /** The page renders it: raw Markdown (the page renders and sanitises it). */
  z.object({
    shown: z.literal('page'),
    path: z.string(),
    title: z.string(),
    markdown: z.string(),
    truncated: z.boolean(),
    /** The note's resolved links (target as written, lower-cased, without heading or alias → note path). */
    links: z.array(z.object({ target: z.string(), path: z.string() })),
  }),
]);
export type OpenNoteResult = z.infer<typeof OpenNoteResult>;

export const OffloadNode = z.object({
  nodeId: z.string(),
  task: z.string(),
  ts: z.string(),
  lines: z.number(),
  bytes: z.number(),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  reduction: z.number(),
  source: z.string(),
  /** The raw log is still on disk (a teammate's ledger may name logs this clone never received). */
  available: z.boolean(),
});
export type OffloadNode = z.infer<typeof OffloadNode>;

export const ListOffloadsResult = z.object({ nodes: z.array(OffloadNode), total: z.number() });

export const LineRange = z.object({ from: z.number(), to: z.number(), label: z.string() });
export type LineRange = z.infer<typeof LineRange>;

export const OffloadDetail = z.object({
  node: OffloadNode,
  /** The Mermaid source of the summary (stateDiagram-v2, ≤ 15 lines). */
  mermaid: z.string(),
  /** The summary an agent received instead of the log. */
  summary: z.string(),
  totalLines: z.number(),
  /** Where the errors are in the raw log, for jumping to them. */
  ranges: z.array(LineRange),
});
export type OffloadDetail = z.infer<typeof OffloadDetail>;

export const LogLines = z.object({
  nodeId: z.string(),
  from: z.number(),
  to: z.number(),
  totalLines: z.number(),
  /** ANSI escapes removed; each line cut at a documented length. */
  lines: z.array(z.string()),
});
export type LogLines = z.infer<typeof LogLines>;

export const Scoreboard = z.object({
  /** Tokens agents did not have to read: offloaded logs (before − summary) plus GC runs (before − after). */
  tokensSaved: z.number(),
  offload: z.object({ events: z.number(), tokensBefore: z.number(), tokensAfter: z.number(), tokensSaved: z.number() }),
  gc: z.object({ events: z.number(), tokensBefore: z.number(), tokensAfter: z.number(), tokensSaved: z.number() }),
  /** Cumulative tokens saved at the end of each day (UTC) that had events, oldest first. */
  series: z.array(z.object({ day: z.string(), tokensSaved: z.number(), cumulative: z.number() })),
  prices: z.array(PriceTier),
  /** Where the prices come from: the vault's file, or the built-in defaults. */
  pricesSource: z.enum(['vault', 'defaults']),
  pricesFile: z.string(),
  /** The vault's price file could not be used (the defaults are shown): why. */
  pricesWarning: z.string().optional(),
  /** tokensSaved × price per tier, in the order of `prices`. */
  usdSaved: z.array(z.number()),
  /** First and last UTC day (YYYY-MM-DD) with a counted event. */
  first: z.string().optional(),
  last: z.string().optional(),
  /** Ledger lines that were not valid entries (skipped, counted). */
  skipped: z.number(),
});
export type Scoreboard = z.infer<typeof Scoreboard>;

export const SavePricesResult = z.object({ saved: z.string(), tiers: z.number() });

/** Vectors being filled in the background: the header shows "embedding 3,100 / 12,601" while `filling`. */
export const EmbeddingProgress = VectorCoverage.extend({ filling: z.boolean() });
export type EmbeddingProgress = z.infer<typeof EmbeddingProgress>;

/** `embedding` absent: the host has no vector channel (yet) — no model loaded, or a bm25-only host. */
export const StatusResult = z.object({ embedding: EmbeddingProgress.optional() });
export type StatusResult = z.infer<typeof StatusResult>;

/** What each method answers, for typing both ends. */
export const RESULT_SCHEMAS = {
  search: SearchResult,
  openNote: OpenNoteResult,
  listOffloads: ListOffloadsResult,
  getOffload: OffloadDetail,
  readLog: LogLines,
  scoreboard: Scoreboard,
  savePrices: SavePricesResult,
  status: StatusResult,
} as const satisfies Record<ConsoleMethod, z.ZodType>;
export type ResultOf<M extends ConsoleMethod> = z.infer<(typeof RESULT_SCHEMAS)[M]>;

// ---------------------------------------------------------------------------------------------- host messages

export const ProtocolError = z.object({ code: z.enum(ERROR_CODES), message: z.string() });
export type ProtocolError = z.infer<typeof ProtocolError>;

const okResponse = <M extends ConsoleMethod>(method: M) =>
  z.object({ kind: z.literal('response'), id: z.number().int(), ok: z.literal(true), method: z.literal(method), result: RESULT_SCHEMAS[method] });

export const HostMessage = z.union([
  z.object({
    kind: z.literal('hello'),
    protocol: z.number().int(),
    host: z.enum(['vscode', 'browser']),
    version: z.string(),
    vaultName: z.string(),
    /** VS Code: the panel or the narrow sidebar view; the browser: the page. */
    layout: z.enum(['panel', 'sidebar', 'page']),
  }),
  okResponse('search'),
  okResponse('openNote'),
  okResponse('listOffloads'),
  okResponse('getOffload'),
  okResponse('readLog'),
  okResponse('scoreboard'),
  okResponse('savePrices'),
  okResponse('status'),
  z.object({ kind: z.literal('response'), id: z.number().int(), ok: z.literal(false), method: z.string(), error: ProtocolError }),
  /** Something the page shows changed on disk (or, embeddingChanged, the background fill moved on): re-ask. */
  z.object({ kind: z.literal('event'), event: z.enum(['vaultChanged', 'ledgerChanged', 'embeddingChanged']) }),
]);
export type HostMessage = z.infer<typeof HostMessage>;
export type HelloMessage = Extract<HostMessage, { kind: 'hello' }>;
export type ResponseMessage = Extract<HostMessage, { kind: 'response' }>;

/** Builds the response for a request, so hosts cannot mismatch id or method. */
export function okMessage<M extends ConsoleMethod>(id: number, method: M, result: ResultOf<M>): ResponseMessage {
  return { kind: 'response', id, ok: true, method, result } as ResponseMessage;
}

export function errorMessage(id: number, method: string, error: ProtocolError): ResponseMessage {
  return { kind: 'response', id, ok: false, method, error };
}

/** Validates an inbound page message; the error text names the first problem (for the host's log). */
export function parseClientMessage(raw: unknown): { ok: true; message: ClientMessage } | { ok: false; error: string } {
  const r = ClientMessage.safeParse(raw);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describeIssue(r.error) };
}

export function parseHostMessage(raw: unknown): { ok: true; message: HostMessage } | { ok: false; error: string } {
  const r = HostMessage.safeParse(raw);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describeIssue(r.error) };
}

function describeIssue(err: z.ZodError): string {
  const i = err.issues[0];
  return i ? `${i.path.join('.') || '(message)'}: ${i.message}` : 'invalid message';
}
