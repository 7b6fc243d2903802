import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { IndexDb } from '../../src/core/index/db';
import { DIST_CLI, REPO } from '../helpers/build';

export interface UiServer {
  /** The URL `k0maru ui` printed, token included. */
  url: string;
  /** SIGINT, then the exit code (rejects if the process outlives `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
  stderr(): string;
}

const URL_LINE = /^K0maru console: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)$/;

/** Starts the built `k0maru ui` on a free port and waits for the one stdout line that names its URL. */
export function startUi(vaultRoot: string, timeoutMs = 20_000): Promise<UiServer> {
  const child = spawn(process.execPath, [DIST_CLI, 'ui', '--vault', vaultRoot, '--port', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
      return await Promise.race([exited, late]);
    } finally {
      clearTimeout(timer);
    }
  })());
  return new Promise<UiServer>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`k0maru ui printed no URL within ${timeoutMs} ms; stderr:\n${err}`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const m = URL_LINE.exec(line);
      if (!m) return;
      clearTimeout(timer);
      resolve({ url: m[1]!, stop, stderr: () => err });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`k0maru ui exited (${code}) before printing its URL; stderr:\n${err}`));
    });
  });
}

/**
 * Tokens saved according to `.k0maru/refs/ledger.jsonl`, read here independently of the product's code: every
 * valid entry counts tokens_before − tokens_after (the scoreboard's definition).
 */
/**
 * What the index holds for the scoreboard, read straight from `.k0maru/index.db` (a second connection next to the
 * server's): the sums of the counted token_events rows per kind — not through the code that renders the page.
 */
export function indexTotals(vaultRoot: string): { offload: number; gc: number; gcRuns: number } {
  const db = IndexDb.open(join(vaultRoot, '.k0maru', 'index.db'));
  try {
    const sum = (kind: string) => db.get('SELECT COUNT(*) AS n, COALESCE(SUM(tokens_before - tokens_after), 0) AS saved FROM token_events WHERE counted = 1 AND kind = ?', [kind])!;
    const gc = sum('gc');
    return { offload: Number(sum('offload').saved), gc: Number(gc.saved), gcRuns: Number(gc.n) };
  } finally {
    db.close();
  }
}
