// A folder without `.k0maru`: checks the activation events (no startup activation, activation on a command) and
// the no-vault state the status bar shows.
import { test } from 'node:test';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';

test('extension in a workspace without a vault activates only on its commands', { timeout: 300_000 }, async () => {
  await runHostSuite({ fixture: join(FIXTURES, 'workspace-empty'), extensionPath: REPO_ROOT, suite: 'no-vault' });
});
