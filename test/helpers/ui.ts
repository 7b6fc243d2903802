import { spawn, type ChildProcess } from 'node:child_process';
import { DIST_CLI, REPO } from './build';

// The built `k0maru ui` as a child process, for the CLI tests and the browser end-to-end test alike.

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
  /** SIGINT, then the exit code; SIGKILL and a rejection if the process outlives `timeoutMs`. */
  stop(timeoutMs?: number): Promise<number | null>;
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
  let stopping: Promise<number | null> | undefined;
  const stop = (ms = 5000) => (stopping ??= (async () => {
    if (child.exitCode !== null) return child.exitCode;
    child.kill('SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`k0maru ui did not exit within ${ms} ms of SIGINT`));
    }, ms)));
    try {
      return (await Promise.race([exited, late])).code;
    } finally {
      clearTimeout(timer);
    }
  })());
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
      resolve({ child, url: m[1]!, port: Number(m[2]), token: m[3]!, stdout: () => out, stderr: () => err, exited, startupMs: performance.now() - t0, stop });
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`k0maru ui exited with ${code} before printing its URL\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

