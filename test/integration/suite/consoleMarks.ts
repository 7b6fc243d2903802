// Shared by the in-host console suites and the runners that drive the page (plain node: no vscode import here).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file a runner writes into the workspace once it drove the page (its content: '' or the failure). */
export const UI_DONE_FILE = '.k0-console-ui-done';
/** The line the in-host side logs when the panel is ready; the runner waits for it before it looks for the page. */
export const UI_READY_MARK = 'K0_CONSOLE_READY';

/** The in-host half: say the console is open, wait for the runner to drive it, fail with the runner's failure. */
export async function waitForRunner(workspace: string, timeoutMs = 150_000): Promise<void> {
  console.log(UI_READY_MARK);
  const done = join(workspace, UI_DONE_FILE);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(done)) {
    if (Date.now() > deadline) throw new Error(`the runner did not drive the console within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const failure = readFileSync(done, 'utf8');
  if (failure) throw new Error(`the runner failed while driving the page: ${failure}`);
}
