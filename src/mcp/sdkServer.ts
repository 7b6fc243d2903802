import { Writable, type Readable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer, type K0McpServer, type McpServerOptions } from './server';
import { isReplayAnswer } from './quickFront';
import { RequestLedger } from './requestLedger';

/**
 * The SDK half of the MCP server (loaded by main.ts when the quick front hands over): the SDK server and its
 * stdio transport on `input` (the replayed `initialize` messages, then the rest of stdin), writing to stdout
 * except its answers to the replayed requests, which the front has already given.
 */
export interface SdkServer extends K0McpServer {
  /** Resolves once every request the transport has received is answered (or cancelled by the client). */
  answered(): Promise<void>;
}

export async function startSdkServer(opts: McpServerOptions, input: Readable, maxBufferSize: number, log: (level: string, message: string) => void): Promise<SdkServer> {
  const k0 = createMcpServer(opts);
  const out = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      // The transport writes one serialized message per write (serializeMessage).
      const line = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (isReplayAnswer(line)) cb();
      else if (process.stdout.write(chunk)) cb();
      else process.stdout.once('drain', () => cb());
    },
  });
  const transport = new StdioServerTransport(input, out, { maxBufferSize });
  transport.onerror = (err) => log('error', `transport: ${err.message}`);
  await k0.server.connect(transport);
  // Wrapped after connect, which installs the SDK's own onmessage: the transport calls it synchronously for each
  // line it reads, so by the input's 'end' every request sent has been recorded.
  const ledger = new RequestLedger();
  const dispatch = transport.onmessage;
  transport.onmessage = (...args: Parameters<NonNullable<typeof dispatch>>) => {
    ledger.received(args[0]);
    dispatch?.(...args);
  };
  const send = transport.send.bind(transport);
  transport.send = async (...args: Parameters<typeof send>) => {
    await send(...args);
    ledger.sent(args[0]);
  };
  return { ...k0, answered: () => ledger.answered() };
}
