// Workspace Trust on: the fixture folder opens in Restricted Mode. The manifest declares limited support, so the
// extension activates, but it must not scan or write the index until the user trusts the folder.
import { test } from 'node:test';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';

test('extension in Restricted Mode (untrusted workspace) writes nothing', { timeout: 300_000 }, async () => {
  await runHostSuite({ fixture: join(FIXTURES, 'workspace-basic'), extensionPath: REPO_ROOT, suite: 'untrusted', workspaceTrust: true });
});
