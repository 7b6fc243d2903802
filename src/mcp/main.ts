import type { Readable } from 'node:stream';
import type { McpServerOptions } from './server';
import type { SdkServer } from './sdkServer';
import { resolveUserPath } from '../core/vault/userPath';
import { OversizeLineFilter } from './oversizeFilter';
import { QuickFront } from './quickFront';
import { STATIC_ANSWERS } from './staticAnswers.generated';
import { VERSION } from '../core/version';
import { nodeUtil } from '../core/fsutil/lazyBuiltin';

/**
 * `k0maru mcp [--sidecar] [--vault PATH]` over stdio. The transport owns stdout: every log line goes to stderr.
 * Spawned on demand by the client and gone when it closes stdin — no daemon.
 *
 * The SDK is not loaded to answer `initialize` and `tools/list` (quickFront.ts): the first other message, or the
 * first quiet moment after `tools/list`, loads it; nothing opens the index, scans or loads a model before a tool
 * call needs it (ProjectHost is lazy). K0MARU_MCP_QUICK=0 hands every message to the SDK from the start.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How long SIGTERM / stdin close waits for calls in flight before the process exits regardless. */
export const SHUTDOWN_GRACE_MS = 5_000;

export async function runMcpServer(argv: string[]): Promise<void> {
  const { values } = nodeUtil().parseArgs({ args: argv, options: { sidecar: { type: 'boolean' }, vault: { type: 'string' }, debug: { type: 'boolean' } }, strict: false });
  const log = (level: string, message: string) => {
    if (level !== 'info' || values.debug) process.stderr.write(`[k0maru-mcp] ${level}: ${message}\n`);
  };
  const mode = values.sidecar ? 'sidecar' : 'full';
  const opts: McpServerOptions = { vault: typeof values.vault === 'string' ? resolveUserPath(values.vault, process.cwd()) : undefined, cwd: process.cwd(), env: process.env, log, mode };
  const write = (line: string) => void process.stdout.write(line);
  let k0: Promise<SdkServer> | undefined;
  // Resolves once the SDK has read all of its input that stdin will ever give (its end): see shutdown.
  let sdkInputRead: Promise<void> | undefined;
  // The SDK module, loaded at most once: by the hand-over, or ahead of it once tools/list is answered.
  let sdk: Promise<typeof import('./sdkServer')> | undefined;
  const loadSdk = () => (sdk ??= import('./sdkServer'));
  const front = new QuickFront({
    answers: STATIC_ANSWERS[mode],
    latestProtocolVersion: STATIC_ANSWERS.latestProtocolVersion,
    supportedProtocolVersions: STATIC_ANSWERS.supportedProtocolVersions,
    version: VERSION,
    write,
    handOver: (input: Readable) => {
      sdkInputRead = new Promise((resolve) => input.once('end', () => resolve()));
      k0 = loadSdk().then((m) => m.startSdkServer(opts, input, MAX_MESSAGE_BYTES + 1, log));
      k0.catch((err) => {
        process.stderr.write(`[k0maru-mcp] fatal: ${(err as Error).message}\n`);
        process.exit(1);
      });
    },
    // Loaded (not started) while the client reads the tool list, so its first call does not wait for the compile.
    onToolsListed: () => void setTimeout(() => void loadSdk().catch(() => {}), 0),
  });
  // The SDK's default 10 MiB cap closes the connection on one big message; 64 MiB lets an oversized argument
  // (a 10 MB note) reach the tool and come back as a clear FILE_TOO_LARGE error instead.
  // Messages over the cap are dropped as they stream in and answered with FILE_TOO_LARGE (oversizeFilter.ts),
  // serialized as the SDK's transport serializes.
  const input = new OversizeLineFilter(MAX_MESSAGE_BYTES, (m) => write(JSON.stringify(m) + '\n'), (m) => log('error', m));
  process.stdin.pipe(input);
  input.on('data', (chunk: Buffer) => front.push(chunk));
  // Resolves once the front has seen all of stdin and decided whether to hand over (so k0 is set if it will be).
  const frontEnded = new Promise<void>((resolve) => input.on('end', () => (front.end(), resolve())));
  if (process.env.K0MARU_MCP_QUICK === '0') front.handOver();
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    // A request that never settles must not keep a terminated server alive: the drain gets a bounded grace,
    // counted from when the SDK serves (a hand-over just before stdin closed may still be loading it).
    const grace = () => void setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
    if (k0) k0.then(grace, grace);
    else grace();
    // Let requests already received finish (a client may write its last call and close stdin at once): once the
    // SDK has read all of its input (stdin's end; bounded, since a SIGTERM leaves stdin open), every request it
    // was given is recorded, and the server waits until each is answered (requestLedger.ts).
    const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
    const bounded = (p: Promise<void> | undefined) => (p ? Promise.race([p, pause(SHUTDOWN_GRACE_MS / 5)]) : undefined);
    bounded(frontEnded)!
      .then(async () => {
        const server = await k0;
        if (server) await bounded(sdkInputRead);
        await server?.answered();
        await server?.idle();
        await server?.close();
      })
      .finally(() => process.exit(0));
  };
  process.stdin.on('end', shutdown);
  process.stdin.on('close', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('uncaughtException', (err) => log('error', `uncaught: ${err.stack ?? err.message}`));
  process.on('unhandledRejection', (err) => log('error', `unhandled rejection: ${String(err)}`));
  log('info', `serving ${STATIC_ANSWERS[mode].toolsList.tools.length} tools (${mode} mode)`);
}
