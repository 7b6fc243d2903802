import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { DIST_CLI, ensureBuilt, REPO } from '../../helpers/build';

/** Builds dist/ when missing, and again when the built CLI predates `k0maru ui` (a stale dist/ from before). */
export function ensureUiBuilt(): void {
  ensureBuilt();
  if (readFileSync(DIST_CLI, 'utf8').includes('Open the console in a browser')) return;
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('node esbuild.mjs failed');
}

export interface RunningUi {
  child: ChildProcess;
  url: string;
  port: number;
  token: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (and when it came, ms since the call). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Milliseconds from spawn to the printed URL. */
  startupMs: number;
}

export const URL_LINE = /^K0maru console: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+))$/m;

/** Spawns the built CLI `k0maru ui` and waits for the one stdout line with its URL. */
export function startUi(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunningUi> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [DIST_CLI, 'ui', ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (err += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`k0maru ui printed no URL within 20 s\nstdout: ${out}\nstderr: ${err}`));
    }, 20_000);
    const onData = () => {
      const m = URL_LINE.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ child, url: m[1]!, port: Number(m[2]), token: m[3]!, stdout: () => out, stderr: () => err, exited, startupMs: performance.now() - t0 });
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`k0maru ui exited with ${code} before printing its URL\nstdout: ${out}\nstderr: ${err}`));
    });
  });
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
