/**
 * Mermaid → inline <svg>, with the bundled mermaid package (no CDN: esbuild inlines it and its lazily imported
 * diagram modules into the one page bundle). securityLevel 'strict' makes mermaid sanitise labels and drop click
 * handlers; startOnLoad is off because the page renders on demand.
 *
 * Two things make the diagram readable where it is shown:
 * - Labels are SVG text (htmlLabels off), measured in the element that will show them. HTML labels sit in a
 *   foreignObject sized from a measurement taken elsewhere; when the fonts differ (a VS Code webview's theme
 *   font) the box comes out narrower than the text, which is then clipped (`booking.go:62` read `booking.gc`) and
 *   the layout built on the wrong sizes lets labels run into each other.
 * - Colours are the page's own: the `--k-*` variables (the cockpit palette in the browser, the user's `--vscode-*`
 *   theme in a webview, see console.css) resolved to rgb() and given to mermaid's `base` theme, every colour it
 *   would otherwise derive set explicitly, so no stock grey remains.
 */
import mermaid from 'mermaid';

let counter = 0;
let configured = '';

type Palette = Record<'bg' | 'panel' | 'raised' | 'border' | 'fg' | 'muted' | 'accent', string>;
const VARS: Record<keyof Palette, string> = {
  bg: '--k-bg', panel: '--k-panel', raised: '--k-raised', border: '--k-border', fg: '--k-fg', muted: '--k-muted', accent: '--k-accent',
};
// Used when a variable resolves to nothing (a theme that leaves one undefined): the cockpit's own values.
const COCKPIT: Palette = { bg: '#0F172A', panel: '#111C33', raised: '#1E293B', border: '#1E293B', fg: '#E2E8F0', muted: '#94A3B8', accent: '#22C55E' };

/** The page's palette as concrete colours mermaid's colour maths can parse, read where the diagram will live. */
function readPalette(host: HTMLElement): { palette: Palette; font: string; size: string } {
  const probe = document.createElement('span');
  host.appendChild(probe);
  try {
    const palette = { ...COCKPIT };
    for (const key of Object.keys(VARS) as (keyof Palette)[]) {
      probe.style.color = '';
      probe.style.color = `var(${VARS[key]})`;
      const c = getComputedStyle(probe).color;
      if (c && !/^rgba\(.*,\s*0\)$/.test(c) && c !== 'transparent') palette[key] = c;
    }
    const cs = getComputedStyle(host);
    return { palette, font: cs.fontFamily || 'sans-serif', size: cs.fontSize || '14px' };
  } finally {
    probe.remove();
  }
}

function themeVariables(p: Palette, font: string, size: string): Record<string, string | boolean> {
  return {
    darkMode: isDark(p.bg),
    fontFamily: font,
    fontSize: size,
    background: p.panel,
    // Boxes: raised surface, accent outline, page text.
    primaryColor: p.raised, primaryBorderColor: p.accent, primaryTextColor: p.fg,
    secondaryColor: p.raised, secondaryBorderColor: p.accent, secondaryTextColor: p.fg,
    tertiaryColor: p.panel, tertiaryBorderColor: p.border, tertiaryTextColor: p.fg,
    mainBkg: p.raised, nodeBorder: p.accent, nodeTextColor: p.fg, textColor: p.fg, titleColor: p.fg,
    lineColor: p.muted, arrowheadColor: p.muted,
    // State diagrams name their own colours; give every one of them.
    stateBkg: p.raised, stateBorder: p.accent, stateLabelColor: p.fg, compositeBackground: p.panel, compositeTitleBackground: p.raised,
    compositeBorder: p.border, altBackground: p.panel, innerEndBackground: p.accent, specialStateColor: p.accent,
    transitionColor: p.muted, transitionLabelColor: p.fg, labelColor: p.fg, labelTextColor: p.fg,
    labelBackgroundColor: p.panel, edgeLabelBackground: p.panel, clusterBkg: p.panel, clusterBorder: p.border,
    noteBkgColor: p.panel, noteBorderColor: p.border, noteTextColor: p.fg, errorBkgColor: p.panel, errorTextColor: p.fg,
  };
}

/** rgb(r, g, b) or #rrggbb → is it a dark colour (mermaid then derives for a dark page). */
function isDark(color: string): boolean {
  const rgb = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(color)?.slice(1).map(Number)
    ?? (/^#([0-9a-f]{6})$/i.exec(color) ? [0, 2, 4].map((i) => parseInt(color.slice(1 + i, 3 + i), 16)) : [0, 0, 0]);
  const [r, g, b] = rgb as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
}

/**
 * Renders one diagram for `host` (the element it will be shown in: its fonts and colours are used); throws with
 * mermaid's parse message when the source is not valid Mermaid.
 */
export async function renderMermaid(source: string, host: HTMLElement): Promise<string> {
  const { palette, font, size } = readPalette(host);
  const key = JSON.stringify([palette, font, size]);
  // Re-initialised only when the palette changed (a VS Code theme switch), not on every render.
  if (key !== configured) {
    mermaid.initialize({
      startOnLoad: false, securityLevel: 'strict', theme: 'base', themeVariables: themeVariables(palette, font, size),
      fontFamily: font, htmlLabels: false,
      state: { padding: 12 },
    });
    configured = key;
  }
  const id = `k0-mermaid-${++counter}`;
  // Measured inside the host, so the text is sized in the fonts it is drawn with.
  const scratch = document.createElement('div');
  scratch.style.cssText = 'position:absolute;left:-10000px;top:0;visibility:hidden;';
  host.appendChild(scratch);
  try {
    const { svg } = await mermaid.render(id, source, scratch);
    return svg;
  } finally {
    scratch.remove();
    // On a parse error mermaid can leave its scratch element in <body>.
    document.getElementById(`d${id}`)?.remove();
    document.getElementById(id)?.remove();
  }
}
