// Issue #18 and #14 in the real VS Code host: a workspace that is a real git repository (notes anchored to code, then
// a commit that changes and deletes that code; harness/staleWorkspace.ts), with enough notes that the background
// embedding fill takes a while. The in-host suite 'stale-progress' checks the Stale group, the diff editor, Mark
// Verified, the status bar's embedding progress and the Recall wait; this side checks what the workbench showed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';
import { buildStaleWorkspace } from './harness/staleWorkspace';

test('stale notes and embedding progress in a real VS Code host (code-server 4.100.3 + chromium)', { timeout: 600_000 }, async () => {
  const result = await runHostSuite({
    fixture: join(FIXTURES, 'workspace-empty'),
    extensionPath: REPO_ROOT,
    suite: 'stale-progress',
    // The fill of ~500 passages on one ORT thread, on a machine other sessions share.
    hostTimeoutMs: 540_000,
    prepare: async (scratch) => {
      buildStaleWorkspace(join(scratch, 'workspace-empty'));
      return {};
    },
  });
  // What a person sees in the workbench's status bar (codicons render as nothing): the fill's progress.
  assert.ok(
    result.statusBarTexts.some((t) => /^K0maru: embedding [\d,]+ \/ [\d,]+$/.test(t)),
    `the workbench never showed "K0maru: embedding N / M"; it showed: ${JSON.stringify(result.statusBarTexts)}`,
  );
});
