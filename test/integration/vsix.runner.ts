// Packages the extension with vsce, installs the .vsix into code-server and runs the `packaged` in-host suite
// against the installed copy: catches what only the package gets wrong (an allow-list that drops a bundle or a
// WASM file, a manifest vsce rejects). The development extension is an empty stub, so the repository itself is
// never loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { installExtension } from './harness/codeServer';
import { FIXTURES, REPO_ROOT, assertPrerequisites, runHostSuite } from './harness/session';
import { packageVsix } from './harness/vsix';

test('packaged .vsix installs into code-server and works there', { timeout: 300_000 }, async () => {
  assertPrerequisites();
  await runHostSuite({
    fixture: join(FIXTURES, 'workspace-basic'),
    extensionPath: join(REPO_ROOT, 'test', 'integration', 'hostStub'),
    suite: 'packaged',
    prepare: async (scratch) => {
      const vsix = packageVsix(REPO_ROOT, join(scratch, 'k0maru.vsix'));
      console.log(`vsce package: ${(vsix.bytes / 1024 / 1024).toFixed(1)} MiB in ${vsix.ms} ms`);
      assert.ok(vsix.bytes > 0);
      const extensionsDir = join(scratch, 'installed-extensions');
      await installExtension(vsix.path, extensionsDir, join(scratch, 'install'));
      return { extensionsDir };
    },
  });
});
