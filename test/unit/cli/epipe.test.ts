import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';

/**
 * `k0maru scan --json | head -1`: once the reader is gone every write to stdout fails with EPIPE. The built CLI
 * used to die on the unhandled 'error' event with a stack trace and exit 1; it must finish quietly with its
 * normal exit code. The reading end is closed before the CLI writes anything, so the EPIPE is certain, not timed.
 */
function runWithClosedStdout(args: string[], cwd: string): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DIST_CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

test('the built CLI exits quietly with its normal code when stdout is closed (EPIPE)', async () => {
  ensureBuilt();
  const notes: Record<string, string> = {};
  for (let i = 0; i < 50; i++) notes[`n${i}.md`] = `# Note ${i}\n\nbody ${i}\n`;
  const v = tempVault(notes);
  try {
    for (const args of [['scan', '--json'], ['scan'], ['recall', 'note', '--mode', 'bm25', '--json'], ['--help']]) {
      const r = await runWithClosedStdout(args, v.root);
      assert.equal(r.signal, null, `${args.join(' ')}: killed by ${r.signal}`);
      assert.equal(r.code, 0, `${args.join(' ')}: exit ${r.code}, stderr:\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /EPIPE|Error:|at .*\.mjs/, `${args.join(' ')} printed a stack:\n${r.stderr}`);
    }
  } finally {
    v.cleanup();
  }
});
