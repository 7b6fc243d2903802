import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * Starts code-server — the real VS Code server with its Node extension host — on a free loopback port, with
 * throw-away user-data, extensions and config folders, no auth, no gallery and no telemetry. The install comes
 * from scripts/setup-code-server.sh (see shared/platform-notes.md for why it is not a devDependency).
 */
export const CODE_SERVER_VERSION = '4.100.3';
const REPO_ROOT = resolve(__dirname, '..', '..', '..');

export function codeServerEntry(): string {
  const dir = process.env.K0_CODE_SERVER_DIR ?? join(REPO_ROOT, '.cache', 'code-server');
  return join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

export interface CodeServer {
  readonly port: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Everything the server printed so far, for failure messages. */
  output(): string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Scratch folder for user-data, extensions and config; the caller removes it. */
  tmpDir: string;
  readyTimeoutMs?: number;
  /** Use this extensions folder (e.g. one a .vsix was installed into) instead of an empty one. */
  extensionsDir?: string;
  /** Keep Workspace Trust on (the default test setup disables it, so every folder is trusted). */
  workspaceTrust?: boolean;
  /** Extra environment for the server; the extension host it spawns inherits it. */
  env?: NodeJS.ProcessEnv;
  /** Another install (e.g. code-server 4.117 on Node 22): its entry.js and the node that runs it. */
  host?: { entry: string; node: string };
}

export async function startCodeServer(opts: StartOptions): Promise<CodeServer> {
  const entry = opts.host?.entry ?? codeServerEntry();
  if (!existsSync(entry)) {
    throw new Error(`code-server ${opts.host ? '' : CODE_SERVER_VERSION} is not installed (${entry} missing): run \`bash scripts/setup-code-server.sh\``);
  }
  const port = await freePort();
  const dirs = serverDirs(opts.tmpDir, opts.extensionsDir);
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const args = [
    entry,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--config', join(dirs.xdg, 'config.yaml'),
    '--user-data-dir', dirs.userData,
    '--extensions-dir', dirs.extensions,
    ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
  ];
  const child = spawn(opts.host?.node ?? process.execPath, args, {
    // Its own process group, so close() also ends the extension host and the file watcher it spawns.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // An empty gallery: the server must never try to reach the marketplace.
      EXTENSIONS_GALLERY: '{"serviceUrl":""}',
      XDG_CONFIG_HOME: dirs.xdg,
      XDG_DATA_HOME: dirs.xdg,
      ...opts.env,
    },
  });
  let output = '';
  const collect = (b: Buffer) => {
    output += b.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));

  const origin = `http://127.0.0.1:${port}`;
  const server: CodeServer = { port, origin, output: () => output, close: () => stop(child, exited) };
  try {
    await waitReady(origin, exited, opts.readyTimeoutMs ?? 30_000);
  } catch (err) {
    await server.close();
    throw new Error(`${(err as Error).message}\n--- code-server output ---\n${output}`);
  }
  return server;
}

function serverDirs(tmpDir: string, extensionsDir?: string) {
  return { userData: join(tmpDir, 'user-data'), extensions: extensionsDir ?? join(tmpDir, 'extensions'), xdg: join(tmpDir, 'xdg') };
}

/** `code-server --install-extension`: installs a .vsix into `extensionsDir` offline (no gallery). */
export async function installExtension(vsix: string, extensionsDir: string, tmpDir: string): Promise<string> {
  const entry = codeServerEntry();
  if (!existsSync(entry)) throw new Error(`code-server not found at ${entry}; run \`bash scripts/setup-code-server.sh\``);
  const dirs = serverDirs(tmpDir, extensionsDir);
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const child = spawn(
    process.execPath,
    [entry, '--config', join(dirs.xdg, 'config.yaml'), '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, EXTENSIONS_GALLERY: '{"serviceUrl":""}', XDG_CONFIG_HOME: dirs.xdg, XDG_DATA_HOME: dirs.xdg } },
  );
  let output = '';
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  const code = await new Promise<number | null>((res) => child.once('exit', res));
  if (code !== 0 || !/successfully installed/i.test(output)) throw new Error(`installing ${vsix} failed (exit ${code}):\n${output}`);
  return output;
}

async function waitReady(origin: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`code-server exited with code ${exitCode} before it was ready`);
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`code-server was not ready after ${timeoutMs} ms`);
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const group = -child.pid!;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(group, s);
    } catch {
      // the group is already gone
    }
  };
  signal('SIGTERM');
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5_000).unref());
  if ((await Promise.race([exited, timer])) === 'timeout') {
    signal('SIGKILL');
    await exited;
  }
  // The extension host may outlive the server for a moment; make sure nothing of the group is left.
  signal('SIGKILL');
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? res(addr.port) : rej(new Error('no port'))));
    });
  });
}
