import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `vsce package` as a user would run it, offline. The manifest has no repository URL yet, so relative README
 * links are left as they are instead of being rewritten to an (unknown) repository.
 */
export const VSCE_FLAGS = ['--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links'];

export function packageVsix(repoRoot: string, outFile: string): { path: string; bytes: number; ms: number; output: string } {
  const t0 = Date.now();
  const vsce = join(repoRoot, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', ...VSCE_FLAGS, '-o', outFile], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`vsce package failed (exit ${r.status}):\n${output}`);
  return { path: outFile, bytes: statSync(outFile).size, ms: Date.now() - t0, output };
}
