// The console as a user meets it in VS Code: the in-host side (suite 'console-ui', test/integration/suite/console.ts)
// opens the K0maru Console panel in code-server; this runner finds the page inside the workbench's webview iframes,
// types a query, presses Enter, sees the hits (a real postMessage round trip through the extension host), clicks a
// hit's title and sees the note open in an editor tab; then it opens an offload's diagram in the Offloads tab and
// checks it is drawn in the VS Code theme's colours. The in-host side then checks what the host answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { FIXTURES, REPO_ROOT, runHostSuite } from './harness/session';
import { driveConsole } from './harness/consolePage';
import { DIST_CLI } from '../helpers/build';
import { DIAGRAM_FACTS, assertPaintsFrom, assertReadable, type DiagramFacts } from '../e2e/diagramFacts';

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

/**
 * The offload diagram inside the real webview: its colours come from the VS Code theme (the page's --k-* variables
 * resolve to the workbench's --vscode-* ones), its labels are whole and apart. Then back to the note's editor tab
 * and the Search tab, where the in-host side expects them.
 */
async function diagramInTheme(page: Page, frame: Frame, workspace: string): Promise<void> {
  const log = join(REPO_ROOT, 'test', 'fixtures', 'logs', 'go-test-failure.log');
  const r = spawnSync(process.execPath, [DIST_CLI, 'offload', '--threshold', '0', '--task', 'go-test', '--json', '--vault', workspace, log], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const { nodeId, mermaid } = JSON.parse(r.stdout) as { nodeId: string; mermaid: string };
  await frame.click('[data-testid=tab-offloads]');
  await frame.click(`[data-testid=offload-node][data-node-id=${nodeId}] button`, { timeout: 30_000 });
  await frame.waitForSelector('[data-testid=offload-diagram] svg', { timeout: 30_000 });
  const facts = await frame.evaluate(DIAGRAM_FACTS) as DiagramFacts;
  const themeBg = await frame.evaluate(`(() => {
    const probe = document.createElement('span');
    probe.style.color = getComputedStyle(document.documentElement).getPropertyValue('--vscode-editor-background');
    document.body.appendChild(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  })()`) as string;
  await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-diagram.png') });
  assert.equal(facts.palette['--k-bg'], themeBg, 'the page background is the theme\'s editor background');
  assertReadable(facts, mermaid);
  assertPaintsFrom(facts, facts.palette);
  assert.ok(!facts.paints.includes('rgb(31, 32, 32)') && !facts.paints.includes('rgb(204, 204, 204)'), 'none of Mermaid\'s stock greys');
  await frame.click('[data-testid=tab-search]');
  await page.locator('.tabs-container .tab', { hasText: NOTE }).first().click();
  await page.locator('.editor-group-container.active .tab.active', { hasText: NOTE }).first().waitFor({ timeout: 15_000 });
}

test('console in a real VS Code webview: a search typed in the page shows hits, a click opens the note', { timeout: 300_000 }, async () => {
  mkdirSync(join(REPO_ROOT, 'test-results'), { recursive: true });
  await runHostSuite({
    fixture: join(FIXTURES, 'workspace-basic'),
    extensionPath: REPO_ROOT,
    suite: 'console-ui',
    drive: (page, ctx) => driveConsole(page, ctx, async (frame) => {
      await searchAndOpen(page, frame);
      await diagramInTheme(page, frame, ctx.workspace);
    }).catch(async (err) => {
      await page.screenshot({ path: SCREENSHOT }).catch(() => undefined);
      throw err;
    }),
  });
});
