/**
 * How a Markdown link in a note resolves to a vault path. One function for the indexer (src/core/vault/markdown.ts,
 * which stores link targets) and the console page (which must find those same targets): pure string work.
 */

/** A Markdown link's href made vault-relative (`../b.md` from `a/x.md` → `b.md`); undefined for URLs and escapes. */
export function resolveNoteHref(fromPath: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined; // http:, mailto:, file:, obsidian: …
  const parts = href.startsWith('/') ? [] : fromPath.split('/').slice(0, -1);
  for (const seg of safeDecode(href).split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return undefined; // points outside the vault
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
