import { K0Error } from '../../core/errors';
import { locateVault } from '../../core/vault/paths';
import { EXIT, writeLine, type Command } from '../command';
import { VERSION } from '../../core/version';

/**
 * The port when --port is not given: 0, a free one the system picks. The URL carries a token that is new for
 * every run, so a fixed port would buy no stable bookmark; it would only make a second console (another vault)
 * or a busy port fail. --port N pins one, e.g. to forward it over SSH.
 */
export const DEFAULT_PORT = 0;

/** How long Ctrl+C waits for the index and the embedding worker to close before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 500;

function parsePort(v: unknown): number {
  if (v === undefined) return DEFAULT_PORT;
  const s = String(v).trim();
  const n = Number(s);
  if (!/^\d+$/.test(s) || !Number.isInteger(n) || n > 65535) throw new K0Error('INVALID_ARGUMENT', `--port must be an integer from 0 to 65535 (0: any free port), got ${JSON.stringify(String(v))}`);
  return n;
}

export const uiCommand: Command = {
  name: 'ui',
  summary: 'Open the console in a browser: search debugger, offload viewer, token scoreboard (127.0.0.1 only, per-run token)',
  usage: 'ui [--vault PATH] [--port N] [--open]',
  options: { port: { type: 'string', short: 'p' }, open: { type: 'boolean' } },
  async run({ values, vault, io }) {
    const port = parsePort(values.port);
    // Fail before listening when there is no vault (exit 3), not on the page's first request.
    const paths = locateVault({ vault, cwd: io.cwd, env: io.env });
    // stdout carries exactly one line (the URL: scripts and tests parse it); everything else goes to stderr. Info
    // lines are rare and worth seeing (a background embedding started, finished).
    const log = (level: 'info' | 'warn' | 'error', message: string) => {
      writeLine(io.stderr, `k0maru ui: ${level === 'info' ? '' : `${level}: `}${message}`);
    };
    const { startConsoleServer } = await import('../ui/server');
    const server = await startConsoleServer({ paths, env: io.env, port, version: VERSION, log });
    writeLine(io.stdout, `K0maru console: ${server.url}`);
    writeLine(io.stderr, `k0maru ui: serving ${paths.projectRoot} on 127.0.0.1:${server.port} only; Ctrl+C stops`);
    if (values.open) {
      const { openInBrowser } = await import('../ui/openBrowser');
      void openInBrowser(server.url, io.env, (m) => log('warn', m));
    }
    // Like `k0maru mcp`, the command owns the process from here: it ends on Ctrl+C / SIGTERM, with exit 0 at once.
    return new Promise<number>(() => {
      let stopping = false;
      const stop = () => {
        // A second Ctrl+C does not wait for anything.
        if (stopping) process.exit(EXIT.OK);
        stopping = true;
        const grace = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
        void Promise.race([server.close().catch((err: unknown) => log('warn', `closing: ${(err as Error).message}`)), grace]).then(() => process.exit(EXIT.OK));
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  },
};
