import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const MCP_ENTRY = join(__dirname, '..', '..', 'src', 'mcp', 'bin.ts');
// Absolute, so the server can be started from any cwd (Cursor uses `/`).
const TSX = pathToFileURL(join(__dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** A real MCP SDK client talking to our server in a child process over stdio (run from source through tsx). */
export async function connectStdio(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ client: Client; stderr: () => string; close(): Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TSX, MCP_ENTRY, ...args],
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...(opts.env ?? {}) },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => (err += d));
  const client = new Client({ name: 'k0maru-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

export function textOf(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return (r.content ?? []).map((c) => c.text ?? '').join('\n');
}
