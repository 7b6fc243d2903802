// Workspace Trust on: the fixture folder opens in Restricted Mode. The manifest declares limited support, so the
// extension activates, but it must not scan or write the index until the user trusts the folder. The console
// still opens; a search typed into it shows why it cannot answer (driven here, checked in the host too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';
import { driveConsole } from './harness/consolePage';

test('extension in Restricted Mode (untrusted workspace) writes nothing', { timeout: 300_000 }, async () => {
  await runHostSuite({
    fixture: join(FIXTURES, 'workspace-basic'),
    extensionPath: REPO_ROOT,
    suite: 'untrusted',
    workspaceTrust: true,
    drive: (page, ctx) => driveConsole(page, ctx, async (frame) => {
      await frame.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
      await frame.fill('[data-testid=search-input]', 'redis lock');
      await frame.press('[data-testid=search-input]', 'Enter');
      await frame.waitForFunction(() => /Restricted Mode/.test(document.querySelector('[data-testid=search-status]')?.textContent ?? ''), undefined, { timeout: 30_000 });
      assert.equal(await frame.$$eval('[data-testid=hit]', (els) => els.length), 0);
    }),
  });
});
