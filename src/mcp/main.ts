import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server';
import { resolveUserPath } from '../core/vault/userPath';
import { OversizeLineFilter } from './oversizeFilter';

/**
 * `k0maru mcp [--sidecar] [--vault PATH]` over stdio. The transport owns stdout: every log line goes to stderr.
 * Spawned on demand by the client and gone when it closes stdin — no daemon.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How long SIGTERM / stdin close waits for calls in flight before the process exits regardless. */
export const SHUTDOWN_GRACE_MS = 5_000;

export async function runMcpServer(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { sidecar: { type: 'boolean' }, vault: { type: 'string' }, debug: { type: 'boolean' } }, strict: false });
  const log = (level: string, message: string) => {
    if (level !== 'info' || values.debug) process.stderr.write(`[k0maru-mcp] ${level}: ${message}\n`);
  };
  const k0 = createMcpServer({ vault: typeof values.vault === 'string' ? resolveUserPath(values.vault, process.cwd()) : undefined, cwd: process.cwd(), env: process.env, log, mode: values.sidecar ? 'sidecar' : 'full' });
  // The SDK's default 10 MiB cap closes the connection on one big message; 64 MiB lets an oversized argument
  // (a 10 MB note) reach the tool and come back as a clear FILE_TOO_LARGE error instead.
  // Messages over the cap are dropped as they stream in and answered with FILE_TOO_LARGE (oversizeFilter.ts).
  const input = new OversizeLineFilter(MAX_MESSAGE_BYTES, (m) => void transport.send(m), (m) => log('error', m));
  process.stdin.pipe(input);
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES + 1 });
  transport.onerror = (err) => log('error', `transport: ${err.message}`);
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    // A request that never settles must not keep a terminated server alive: the drain gets a bounded grace.
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
    // Let requests already received finish (a client may write its last call and close stdin at once).
    // The last messages are dispatched asynchronously after 'end': give them a moment to start, then drain.
    new Promise((resolve) => setTimeout(resolve, 100))
      .then(() => k0.idle())
      .then(() => k0.close())
      .finally(() => process.exit(0));
  };
  process.stdin.on('end', shutdown);
  process.stdin.on('close', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('uncaughtException', (err) => log('error', `uncaught: ${err.stack ?? err.message}`));
  process.on('unhandledRejection', (err) => log('error', `unhandled rejection: ${String(err)}`));
  await k0.server.connect(transport);
  log('info', `serving ${k0.tools.length} tools (${values.sidecar ? 'sidecar' : 'full'} mode)`);
}
