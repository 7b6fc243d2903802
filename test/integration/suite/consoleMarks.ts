// Shared by the in-host console suite and console.runner.ts (which runs in plain node: no vscode import here).

/** The file console.runner.ts writes into the workspace once it drove the page (its content: '' or the failure). */
export const UI_DONE_FILE = '.k0-console-ui-done';
/** The line the in-host side logs when the panel is ready; the runner waits for it before it looks for the page. */
export const UI_READY_MARK = 'K0_CONSOLE_READY';
