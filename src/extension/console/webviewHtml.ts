import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { renderConsoleHtml } from '../../shared/consoleHtml';

export type ConsoleLayout = 'panel' | 'sidebar';

/**
 * The one folder a console page may load files from: dist/webview/, which holds only the page bundle and its CSS
 * (esbuild.mjs). Not dist/: that would let the page fetch the extension's own code, models and WASM.
 */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

/** Scripts on (the page is a script), nothing but the bundle folder readable, no command: links. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: [webviewRoot(extensionUri)] };
}

/** The shared shell (src/shared/consoleHtml.ts) with this webview's URIs and CSP source and a fresh crypto nonce. */
export function consoleHtml(webview: vscode.Webview, extensionUri: vscode.Uri, layout: ConsoleLayout): string {
  const root = webviewRoot(extensionUri);
  return renderConsoleHtml({
    host: 'vscode',
    layout,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'webview.js')).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(root, 'webview.css')).toString(),
    // A new nonce for every render: a nonce that repeats across pages would let one page's script tag run in another.
    nonce: randomBytes(18).toString('base64'),
    cspSource: webview.cspSource,
  });
}
