// The console as a user meets it in VS Code: the in-host side (suite 'console-ui', test/integration/suite/console.ts)
// opens the K0maru Console panel in code-server; this runner finds the page inside the workbench's webview iframes,
// types a query, presses Enter, sees the hits (a real postMessage round trip through the extension host), clicks a
// hit's title and sees the note open in an editor tab. The in-host side then checks what the host answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';
import { UI_DONE_FILE, UI_READY_MARK } from './suite/consoleMarks';

const SCREENSHOT = join(REPO_ROOT, 'test-results', 'console-vscode.png');
const NOTE = 'ADR-001-redis-lock.md';

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * VS Code nests the page twice (iframe.webview → iframe#active-frame), on another origin: page.frames() lists every
 * frame, and the console's is the one holding the search input.
 */
async function consoleFrame(page: Page): Promise<Frame> {
  return until('the console page inside the workbench', async () => {
    for (const f of page.frames()) if (await f.$('[data-testid=search-input]')) return f;
    return undefined;
  }, 60_000);
}

async function drive(page: Page, hostLog: () => string[]): Promise<void> {
  await until('the in-host side to open the console', async () => hostLog().some((l) => l.includes(UI_READY_MARK)), 150_000);
  const frame = await consoleFrame(page);
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
    drive: async (page, { workspace, hostLog }) => {
      const done = join(workspace, UI_DONE_FILE);
      try {
        await drive(page, hostLog);
        writeFileSync(done, '');
      } catch (err) {
        // Let the in-host side stop waiting and report; the runner then fails with this error.
        writeFileSync(done, (err as Error).message || String(err));
        await page.screenshot({ path: SCREENSHOT }).catch(() => undefined);
        throw err;
      }
    },
  });
});
