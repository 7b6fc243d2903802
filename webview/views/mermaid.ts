/**
 * Mermaid → inline <svg>, with the bundled mermaid package (no CDN: esbuild inlines it and its lazily imported
 * diagram modules into the one page bundle). securityLevel 'strict' makes mermaid sanitise labels and drop click
 * handlers; startOnLoad is off because the page renders on demand.
 */
import mermaid from 'mermaid';

let initialised = false;
let counter = 0;

function theme(): 'dark' | 'neutral' {
  const body = document.body;
  if (body.dataset.host !== 'vscode') return 'dark';
  // VS Code marks the webview body with its theme kind.
  return body.classList.contains('vscode-light') || body.classList.contains('vscode-high-contrast-light') ? 'neutral' : 'dark';
}

/** Renders one diagram; throws with mermaid's parse message when the source is not valid Mermaid. */
export async function renderMermaid(source: string): Promise<string> {
  if (!initialised) {
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: theme(), fontFamily: 'system-ui, sans-serif' });
    initialised = true;
  }
  const id = `k0-mermaid-${++counter}`;
  try {
    const { svg } = await mermaid.render(id, source);
    return svg;
  } finally {
    // On a parse error mermaid can leave its scratch element in <body>.
    document.getElementById(`d${id}`)?.remove();
    document.getElementById(id)?.remove();
  }
}
