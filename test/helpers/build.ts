import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(__dirname, '..', '..');
export const DIST_MCP = join(REPO, 'dist', 'mcp.mjs');
export const DIST_CLI = join(REPO, 'dist', 'cli.mjs');

/** Tests of the shipped bundles build them when `npm run test:unit` runs without a prior build. */
export function ensureBuilt(): void {
  if (existsSync(DIST_MCP) && existsSync(DIST_CLI)) return;
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('node esbuild.mjs failed');
}
