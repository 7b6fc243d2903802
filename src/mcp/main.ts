import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from './server';

/**
 * `k0maru mcp [--sidecar] [--vault PATH]` over stdio. The transport owns stdout: every log line goes to stderr.
 * Spawned on demand by the client and gone when it closes stdin — no daemon.
 */
export async function runMcpServer(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { sidecar: { type: 'boolean' }, vault: { type: 'string' }, debug: { type: 'boolean' } }, strict: false });
  const log = (level: string, message: string) => {
    if (level !== 'info' || values.debug) process.stderr.write(`[k0maru-mcp] ${level}: ${message}\n`);
  };
  const k0 = createMcpServer({ vault: values.vault as string | undefined, cwd: process.cwd(), env: process.env, log, mode: values.sidecar ? 'sidecar' : 'full' });
  const transport = new StdioServerTransport();
  const shutdown = () => {
    k0.close().finally(() => process.exit(0));
  };
  process.stdin.on('end', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('uncaughtException', (err) => log('error', `uncaught: ${err.stack ?? err.message}`));
  process.on('unhandledRejection', (err) => log('error', `unhandled rejection: ${String(err)}`));
  await k0.server.connect(transport);
  log('info', `serving ${k0.tools.length} tools (${values.sidecar ? 'sidecar' : 'full'} mode)`);
}
