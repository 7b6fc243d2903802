import * as vscode from 'vscode';
import type { K0maruApi } from '../api';
import { ConsoleHost, type ConsoleHostDeps } from './consoleHost';
import { ConsolePanel, OPEN_CONSOLE_COMMAND, PANEL_TYPE } from './consolePanel';
import { CONSOLE_VIEW_ID, ConsoleViewProvider } from './consoleView';

export interface ConsoleRegistration {
  host: ConsoleHost;
  disposables: vscode.Disposable[];
  api: K0maruApi['console'];
}

/**
 * Registers the console command, panel and sidebar view. Cheap: nothing here loads the core; the page's first
 * message does (see ConsoleHost).
 */
export function registerConsole(deps: ConsoleHostDeps): ConsoleRegistration {
  const host = new ConsoleHost(deps);
  const panel = new ConsolePanel(host, deps.extensionUri);
  const view = new ConsoleViewProvider(host);
  return {
    host,
    disposables: [
      // Panel and view first, the host last: pages detach before the host drops its timers.
      panel,
      view,
      host,
      vscode.commands.registerCommand(OPEN_CONSOLE_COMMAND, () => {
        panel.show();
      }),
      vscode.window.registerWebviewViewProvider(CONSOLE_VIEW_ID, view),
      vscode.window.registerWebviewPanelSerializer(PANEL_TYPE, panel.serializer()),
    ],
    api: {
      whenReady: (layout) => host.whenReady(layout),
      stats: () => host.snapshot(),
    },
  };
}
