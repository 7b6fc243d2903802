import { join } from 'node:path';
import { IndexDb } from '../../src/core/index/db';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startUi, type RunningUi } from '../helpers/ui';
import { CHROMIUM_PATH } from '../integration/harness/browser';

/** The built `k0maru ui` on a free port, serving `vaultRoot`. */
export function startUiOn(vaultRoot: string): Promise<RunningUi> {
  return startUi(['--vault', vaultRoot, '--port', '0']);
}

/**
 * What the index holds for the scoreboard, read straight from `.k0maru/index.db` (a second connection next to the
 * server's): the sums of the counted token_events rows per kind — not through the code that renders the page.
 */
export function indexTotals(vaultRoot: string): { offload: number; gc: number; gcRuns: number } {
  const db = IndexDb.open(join(vaultRoot, '.k0maru', 'index.db'));
  try {
    const sum = (kind: string) => db.get('SELECT COUNT(*) AS n, COALESCE(SUM(tokens_before - tokens_after), 0) AS saved FROM token_events WHERE counted = 1 AND kind = ?', [kind])!;
    const gc = sum('gc');
    return { offload: Number(sum('offload').saved), gc: Number(gc.saved), gcRuns: Number(gc.n) };
  } finally {
    db.close();
  }
}

/** Chromium as root in this sandbox: no sandbox, no GPU, nothing that reaches the (closed) network. */
export const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** `k0maru ui` on `vaultRoot`, a headless chromium and one page on it, once the page says it is ready. */
export async function openConsole(vaultRoot: string, viewport: { width: number; height: number }): Promise<{ server: RunningUi; browser: Browser; page: Page }> {
  const server = await startUiOn(vaultRoot);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
  const page = await browser.newPage({ viewport });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready=true]', { timeout: 15_000 });
  return { server, browser, page };
}
