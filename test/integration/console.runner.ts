// The console as a user meets it in VS Code: the in-host side (suite 'console-ui', test/integration/suite/console.ts)
// opens the K0maru Console panel in code-server; this runner finds the page inside the workbench's webview iframes,
// types a query, presses Enter, sees the hits (a real postMessage round trip through the extension host), clicks a
// hit's title and sees the note open in an editor tab. The in-host side then checks what the host answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';
import { driveConsole } from './harness/consolePage';

const SCREENSHOT = join(REPO_ROOT, 'test-results', 'console-vscode.png');
const NOTE = 'ADR-001-redis-lock.md';

async function searchAndOpen(page: Page, frame: Frame): Promise<void> {
  await frame.waitForSelector('body[data-ready="true"][data-host="vscode"][data-layout="panel"]', { timeout: 30_000 });
  await frame.fill('[data-testid=search-input]', 'redis lock invoice');
  await frame.press('[data-testid=search-input]', 'Enter');
  await frame.waitForSelector('[data-testid=hit]', { timeout: 60_000 });
  const paths = await frame.$$eval('[data-testid=hit]', (els) => els.map((e) => e.getAttribute('data-path')));
  const target = paths.find((p) => p?.endsWith(NOTE));
  assert.ok(target, `no hit for ${NOTE}; hits: ${paths.join(', ')}`);
  const status = await frame.textContent('[data-testid=search-status]');
  assert.ok(status && status.trim().length > 0, 'the search status line is empty');
  await page.screenshot({ path: SCREENSHOT });
  await frame.click(`[data-testid=hit][data-path="${target}"] [data-testid=hit-title]`);
  // What a person sees: an editor tab named after the note in the workbench (outside the webview).
  await page.locator('.tabs-container .tab', { hasText: NOTE }).first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-note.png') });
}

test('console in a real VS Code webview: a search typed in the page shows hits, a click opens the note', { timeout: 300_000 }, async () => {
  mkdirSync(join(REPO_ROOT, 'test-results'), { recursive: true });
  await runHostSuite({
    fixture: join(FIXTURES, 'workspace-basic'),
    extensionPath: REPO_ROOT,
    suite: 'console-ui',
    drive: (page, ctx) => driveConsole(page, ctx, (frame) => searchAndOpen(page, frame)).catch(async (err) => {
      await page.screenshot({ path: SCREENSHOT }).catch(() => undefined);
      throw err;
    }),
  });
});
