import * as vscode from 'vscode';
import type { ConsoleHost } from './consoleHost';
import { webviewOptions } from './webviewHtml';

export const OPEN_CONSOLE_COMMAND = 'k0maru.openConsole';
const PANEL_TYPE = 'k0maru.console';

/**
 * The console as an editor tab: one panel, revealed again when the command runs while it is open.
 * retainContextWhenHidden stays off: the page is cheap to rebuild (it asks the host for everything after `hello`),
 * and a hidden webview that keeps its context holds a renderer process's memory for as long as the tab lives.
 */
export class ConsolePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly host: ConsoleHost, private readonly extensionUri: vscode.Uri) {}

  show(): vscode.WebviewPanel {
    if (this.panel) {
      this.panel.reveal();
      return this.panel;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_TYPE, 'K0maru Console', vscode.ViewColumn.Active, {
      ...webviewOptions(this.extensionUri),
      retainContextWhenHidden: false,
      enableFindWidget: true,
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'k0maru.svg');
    const page = this.host.attach(panel.webview, 'panel');
    panel.onDidDispose(() => {
      page.dispose();
      if (this.panel === panel) this.panel = undefined;
    });
    this.panel = panel;
    return panel;
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
