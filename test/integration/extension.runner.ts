// Runs the in-host suite (test/integration/index.ts, bundled by `node esbuild.mjs`) inside a real VS Code
// extension host with this repository loaded as the development extension: code-server serves the workbench,
// headless chromium opens it, and the workbench reports the host's log and exit code back to us.
// Missing prerequisites fail the test with the command that fixes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';

test('extension in a real VS Code host (code-server 4.100.3 + chromium)', { timeout: 300_000 }, async () => {
  const result = await runHostSuite({
    fixture: join(FIXTURES, 'workspace-basic'),
    extensionPath: REPO_ROOT,
    suite: 'development',
  });
  // What a person sees: the item rendered in the workbench's status bar with the fixture's note count.
  assert.ok(
    result.statusBarTexts.some((t) => /^K0maru: 3 notes$/.test(t)),
    `the status bar never showed "K0maru: 3 notes"; it showed: ${JSON.stringify(result.statusBarTexts)}`,
  );
});
