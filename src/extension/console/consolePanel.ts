import * as vscode from 'vscode';
import type { ConsoleHost } from './consoleHost';
import { webviewOptions } from './webviewHtml';

export const OPEN_CONSOLE_COMMAND = 'k0maru.openConsole';
export const PANEL_TYPE = 'k0maru.console';

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
    return this.adopt(panel);
  }

  /** Takes over a panel: a new one, or the one VS Code restores after a window reload (the serializer). */
  adopt(panel: vscode.WebviewPanel): vscode.WebviewPanel {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'k0maru.svg');
    const page = this.host.attach(panel.webview, 'panel');
    panel.onDidDispose(() => {
      page.dispose();
      if (this.panel === panel) this.panel = undefined;
    });
    this.panel?.dispose();
    this.panel = panel;
    return panel;
  }

  /** Brings the console tab back after a window reload instead of leaving a dead tab behind. */
  serializer(): vscode.WebviewPanelSerializer {
    return { deserializeWebviewPanel: async (panel) => void this.adopt(panel) };
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
