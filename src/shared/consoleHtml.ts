/**
 * The console's one HTML shell, used by both hosts: the VS Code webview (asset URIs from asWebviewUri, the
 * webview's cspSource) and `k0maru ui` (same-origin paths carrying the run's token). Pure string work: no node,
 * no vscode. Everything the page needs to know about its host is in escaped data attributes on <body>.
 */
export interface ConsoleShell {
  host: 'vscode' | 'browser';
  layout: 'panel' | 'sidebar' | 'page';
  scriptUri: string;
  styleUri: string;
  /** A fresh random nonce per page (crypto, never Math.random). */
  nonce: string;
  /** VS Code: `webview.cspSource`; the browser: `'self'`. */
  cspSource: string;
  /** Browser host only: the per-run token the page sends with every request. */
  token?: string;
  title?: string;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Scripts run only with the nonce. Styles allow 'unsafe-inline' because Mermaid writes a <style> element into
 * every SVG it renders (and the page sets element styles); no script can be injected through a style.
 * The browser host may talk to itself only (connect-src 'self'); the VS Code webview talks through postMessage.
 */
export function consoleCsp(shell: Pick<ConsoleShell, 'nonce' | 'cspSource' | 'host'>): string {
  const src = shell.cspSource;
  return [
    "default-src 'none'",
    `img-src ${src} data:`,
    `style-src ${src} 'unsafe-inline'`,
    `font-src ${src}`,
    `script-src 'nonce-${shell.nonce}'`,
    shell.host === 'browser' ? "connect-src 'self'" : "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function renderConsoleHtml(shell: ConsoleShell): string {
  const a = (s: string) => escapeHtml(s);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${a(consoleCsp(shell))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,"><!-- else the browser asks /favicon.ico without the token: a 403 in the console -->
<title>${a(shell.title ?? 'K0maru Console')}</title>
<link rel="stylesheet" href="${a(shell.styleUri)}">
</head>
<body data-host="${a(shell.host)}" data-layout="${a(shell.layout)}"${shell.token ? ` data-token="${a(shell.token)}"` : ''}>
<div id="app"><noscript>The K0maru console needs JavaScript.</noscript></div>
<script nonce="${a(shell.nonce)}" src="${a(shell.scriptUri)}"></script>
</body>
</html>
`;
}
