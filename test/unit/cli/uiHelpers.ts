import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { DIST_CLI, ensureBuilt, REPO } from '../../helpers/build';

export { startUi, URL_LINE, type RunningUi } from '../../helpers/ui';

/** Builds dist/ when missing, and again when the built CLI predates `k0maru ui` (a stale dist/ from before). */
export function ensureUiBuilt(): void {
  ensureBuilt();
  if (readFileSync(DIST_CLI, 'utf8').includes('Open the console in a browser')) return;
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('node esbuild.mjs failed');
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One raw HTTP request with full control of the path and the Host header (fetch forbids setting Host and
 * normalises `..` away; a DNS-rebinding attacker and a hand-made request do neither).
 */
export function rawRequest(port: number, opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: { Host: `127.0.0.1:${port}`, ...opts.headers }, agent: false },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

export function rpc(port: number, token: string, message: unknown): Promise<Reply> {
  return rawRequest(port, {
    method: 'POST',
    path: '/rpc',
    headers: { 'Content-Type': 'application/json', 'X-K0maru-Token': token },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
}

/** Opens /events and collects the JSON of every `data:` line; `close` ends the stream. */
export function openEvents(port: number, token: string): Promise<{ status: number; events: unknown[]; comments: string[]; next(pred: (e: unknown) => boolean, ms: number): Promise<unknown>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: `/events?token=${token}`, headers: { Host: `127.0.0.1:${port}`, Accept: 'text/event-stream' }, agent: false }, (res) => {
      const events: unknown[] = [];
      const comments: string[] = [];
      const waiters: { pred: (e: unknown) => boolean; resolve(e: unknown): void }[] = [];
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            if (!line.startsWith('data: ')) continue;
            const e = JSON.parse(line.slice(6)) as unknown;
            events.push(e);
            for (const w of waiters.splice(0)) (w.pred(e) ? w.resolve(e) : waiters.push(w));
          }
        }
      });
      res.on('error', () => {});
      resolve({
        status: res.statusCode ?? 0,
        events,
        comments,
        next: (pred, ms) =>
          new Promise((res2, rej2) => {
            const seen = events.find(pred);
            if (seen) return res2(seen);
            const timer = setTimeout(() => rej2(new Error(`no matching event within ${ms} ms; got ${JSON.stringify(events)}`)), ms);
            waiters.push({ pred, resolve: (e) => (clearTimeout(timer), res2(e)) });
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', (e) => (e as NodeJS.ErrnoException).code !== 'ECONNRESET' && reject(e));
    req.end();
  });
}
