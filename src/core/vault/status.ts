import type { ParsedNote } from './markdown';

/**
 * A note's status as its author wrote it: frontmatter `status:` first, then the conventions real ADRs use —
 * a `## Status` section whose first line is the status ("Superseded by [[ADR-7]]", "✅ Accepted"), or a
 * `Status: Accepted` line in the first lines of the body. Emoji and Markdown emphasis are stripped.
 */
export function extractStatus(note: ParsedNote): string | undefined {
  const fm = note.frontmatter.status;
  if (typeof fm === 'string' && fm.trim()) return clean(fm);
  const heading = note.headings.find((h) => /^status$/i.test(h.text.trim()));
  if (heading) {
    const first = note.blocks.find((b) => b.line > heading.line && b.kind !== 'heading');
    if (first && first.headingPath.at(-1)?.trim().toLowerCase() === 'status') return clean(first.text.split('\n')[0]);
  }
  for (const line of note.lines.slice(0, 40)) {
    const m = /^\s*[*_]*status[*_]*\s*[:：]\s*[*_]*(.+)$/i.exec(line);
    if (m) return clean(m[1]);
  }
  return undefined;
}

function clean(s: string): string {
  return s
    .replace(/[*_`]/g, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .trim();
}
