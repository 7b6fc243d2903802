import * as vscode from 'vscode';
import type { ConsoleHost } from './consoleHost';

export const CONSOLE_VIEW_ID = 'k0maru.console';

/**
 * The console in the K0maru sidebar (narrow layout). VS Code creates the view when the user first shows it and
 * disposes it when it is hidden for good; each resolve attaches a fresh page. Context is not retained when the
 * view is collapsed, for the same reason as the panel (see ConsolePanel).
 */
export class ConsoleViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly attached = new Set<vscode.Disposable>();

  constructor(private readonly host: ConsoleHost) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    const page = this.host.attach(view.webview, 'sidebar');
    this.attached.add(page);
    view.onDidDispose(() => {
      page.dispose();
      this.attached.delete(page);
    });
  }

  dispose(): void {
    for (const p of this.attached) p.dispose();
    this.attached.clear();
  }
}
