import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { UI_DONE_FILE, UI_READY_MARK } from '../suite/consoleMarks';

/** Polls `probe` until it returns something truthy (errors count as "not yet"). */
export async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * VS Code nests a webview's page twice (iframe.webview → iframe#active-frame), on another origin: page.frames()
 * lists every frame, and the console's is the one holding the search input.
 */
export function consoleFrame(page: Page): Promise<Frame> {
  return until('the console page inside the workbench', async () => {
    for (const f of page.frames()) if (await f.$('[data-testid=search-input]')) return f;
    return undefined;
  }, 60_000);
}

/**
 * The runner's half of a driven console test: wait until the in-host side logged that the console is open, find
 * the page, run `steps`, then write the done file into the workspace ('' or the failure) so the in-host side
 * stops waiting (see waitForRunner in suite/consoleMarks.ts).
 */
export async function driveConsole(
  page: Page,
  ctx: { workspace: string; hostLog: () => string[] },
  steps: (frame: Frame) => Promise<void>,
): Promise<void> {
  const done = join(ctx.workspace, UI_DONE_FILE);
  try {
    await until('the in-host side to open the console', async () => ctx.hostLog().some((l) => l.includes(UI_READY_MARK)), 150_000);
    await steps(await consoleFrame(page));
    writeFileSync(done, '');
  } catch (err) {
    writeFileSync(done, (err as Error).message || String(err));
    throw err;
  }
}
