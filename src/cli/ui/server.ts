import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { K0Error } from '../../core/errors';
import type { Logger } from '../../core/index/db';
import { ProjectHost } from '../../core/host';
import { createConsoleService, type ConsolePorts } from '../../core/console/service';
import type { EmbeddingProgress } from '../../shared/protocol';
import { dispatchClientMessage, type DispatchContext } from '../../core/console/dispatch';
import type { VaultPaths } from '../../core/vault/paths';
import { consoleCsp, renderConsoleHtml } from '../../shared/consoleHtml';
import { AccessPolicy, newNonce, newToken } from './access';
import { ASSETS, locateAssetsDir, serveAsset } from './assets';
import { readBody } from './body';
import { EventHub } from './events';

/**
 * `k0maru ui`: the console page and its protocol over node:http on loopback. Routes (all need the token):
 *   GET /              the shell (renderConsoleHtml, host 'browser'), its CSP also sent as a header
 *   GET /webview.js|css the bundle from dist/
 *   POST /rpc          one ClientMessage (JSON) → 200 with exactly the HostMessage dispatchClientMessage returns
 *   GET /events        Server-Sent Events: { kind: 'event', event: 'ledgerChanged' | 'vaultChanged' | 'embeddingChanged' }
 * The protocol itself (validation, handlers, errors) lives in src/core/console; this file is transport only.
 */
export const MAX_RPC_BYTES = 1024 * 1024;
/** One background embedding step: short, so a search queued behind it waits at most this long. */
export const BACKGROUND_EMBED_STEP_MS = 800;

/** Loopback only, never 0.0.0.0 or ::. */
export const BIND_HOST = '127.0.0.1';

export interface ConsoleServerOptions {
  /** The project, located by the caller (so a missing vault fails before anything listens). */
  paths: VaultPaths;
  env?: NodeJS.ProcessEnv;
  /** 0: a free port chosen by the system. */
  port: number;
  version: string;
  log: Logger;
  /** Where webview.js / webview.css are; default: dist/ beside the running bundle. */
  assetsDir?: string;
}

export interface ConsoleServerHandle {
  url: string;
  port: number;
  token: string;
  address(): AddressInfo;
  /** Closes the listener and every connection at once, then the project (index, embedding worker). */
  close(): Promise<void>;
}

const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

export async function startConsoleServer(opts: ConsoleServerOptions): Promise<ConsoleServerHandle> {
  const { paths, log } = opts;
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new K0Error('INVALID_ARGUMENT', `port must be an integer from 0 to 65535, got ${opts.port}`);
  const assetsDir = opts.assetsDir ?? locateAssetsDir();
  let events: EventHub | undefined;
  // The header's "embedding 3,100 / 12,601": what the fill reported last (at its start and after every step).
  let embedding: EmbeddingProgress | undefined;
  // The one long-lived host. Unlike a one-shot MCP call the console stays up and a person watches it: once a
  // hybrid search leaves passages without vectors it keeps embedding them in the background and tells the pages
  // when the vault is covered, so the vector column fills in without searching again and again.
  const host = new ProjectHost({
    paths,
    env: opts.env ?? process.env,
    log,
    backgroundFill: {
      stepMs: BACKGROUND_EMBED_STEP_MS,
      onCovered: () => events?.broadcast('vaultChanged'),
      onProgress: (p) => {
        embedding = { embedded: p.embedded, passages: p.passages, filling: p.filling };
        events?.broadcast('embeddingChanged');
      },
    },
  });
  // Pages send several requests at once: they share the host's single-flight scans (each still sees a scan that
  // started after it asked), never two scans racing over one index.
  const ports: ConsolePorts = {
    project: () => host.fresh({ reason: 'console' }),
    vectors: (budgetMs) => host.vectors(budgetMs),
    embedding: () => embedding,
  };
  const ctx: DispatchContext = {
    service: createConsoleService(ports),
    hello: { host: 'browser', version: opts.version, vaultName: basename(paths.projectRoot), layout: 'page' },
    log,
  };
  const token = newToken();
  let policy: AccessPolicy | undefined; // known once the port is

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log('error', `console: ${req.method} ${req.url?.split('?')[0]} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) sendText(res, 500, 'internal error (see the k0maru ui log)');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    // Only the path is ever used: exact matches against a fixed route list, never a file name.
    const url = new URL(req.url ?? '/', `http://${BIND_HOST}`);
    const denial = policy!.check(req, url);
    if (denial) {
      log('warn', `console: refused ${req.method} ${url.pathname}: ${denial.reason}`);
      return sendText(res, denial.status, `forbidden: ${denial.reason}`);
    }
    const route = url.pathname;
    const method = req.method ?? 'GET';
    const allow = route === '/rpc' ? 'POST' : route === '/' || route === '/events' || route in ASSETS ? 'GET' : undefined;
    if (!allow) return sendText(res, 404, 'not found');
    if (method !== allow) {
      res.setHeader('Allow', allow);
      return sendText(res, 405, `method not allowed: use ${allow}`);
    }
    if (route === '/') return servePage(res);
    if (route === '/events') return events!.attach(res);
    if (route === '/rpc') return serveRpc(req, res);
    return serveAsset(res, assetsDir, route, (status, text) => sendText(res, status, text));
  }

  function servePage(res: ServerResponse): void {
    const nonce = newNonce();
    const q = `?token=${encodeURIComponent(token)}`;
    const shell = { host: 'browser', layout: 'page', nonce, cspSource: "'self'", token, scriptUri: `/webview.js${q}`, styleUri: `/webview.css${q}` } as const;
    res.setHeader('Content-Security-Policy', consoleCsp(shell));
    send(res, 200, 'text/html; charset=utf-8', renderConsoleHtml(shell));
  }

  async function serveRpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // application/json only: a cross-site <form> can send text/plain or form data, never JSON without a preflight.
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json') return sendJson(res, 415, { error: 'POST /rpc takes a JSON body (Content-Type: application/json)' });
    const body = await readBody(req, MAX_RPC_BYTES);
    if (body.tooLarge) return sendJson(res, 413, { error: `the request body is over ${MAX_RPC_BYTES} bytes` }, true);
    let raw: unknown;
    try {
      raw = JSON.parse(body.text);
    } catch (err) {
      return sendJson(res, 400, { error: `invalid JSON: ${(err as Error).message}` });
    }
    // Protocol errors (an unknown method, a bad id) are answered inside the protocol: 200 with ok: false.
    sendJson(res, 200, await dispatchClientMessage(ctx, raw));
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE') reject(new K0Error('IO_ERROR', `port ${opts.port} on ${BIND_HOST} is already in use: stop what holds it, or pick another with --port N (--port 0 takes any free port)`, { errno: err.code }));
      else if (err.code === 'EACCES') reject(new K0Error('IO_ERROR', `not allowed to listen on ${BIND_HOST}:${opts.port} (ports below 1024 need privileges): pick another with --port N`, { errno: err.code }));
      else reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host: BIND_HOST, port: opts.port, exclusive: true });
  });
  server.on('error', (err) => log('error', `console: server error: ${err.message}`));

  const address = server.address() as AddressInfo;
  policy = new AccessPolicy(token, address.port);
  events = new EventHub(paths, log);
  let closing: Promise<void> | undefined;

  return {
    url: `http://${BIND_HOST}:${address.port}/?token=${token}`,
    port: address.port,
    token,
    address: () => address,
    close() {
      closing ??= (async () => {
        // Listener first (the port is free from here on), then every connection, event streams included.
        events?.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        await host.close();
      })();
      return closing;
    },
  };
}

function send(res: ServerResponse, status: number, type: string, body: string, close = false): void {
  const buf = Buffer.from(body, 'utf8');
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': String(buf.length), ...(close ? { Connection: 'close' } : {}) });
  res.end(buf);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  send(res, status, 'text/plain; charset=utf-8', text + '\n');
}

function sendJson(res: ServerResponse, status: number, value: unknown, close = false): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), close);
}
