import type { ParsedNote } from '../vault/markdown';
import { extractStatus } from '../vault/status';

/**
 * What the rule parser needs from an ADR. Two ways to get it: from a ParsedNote (callers that already parsed the
 * note with markdown-it), or with `scanAdr`, a line scanner for the hook path. A pre-commit hook on a 500-note
 * vault measured ~75 ms of CPU in markdown-it + yaml for 50 ADRs, more than the whole check; the scanner reads
 * only what rules need: scalar frontmatter keys, ATX headings, fenced code blocks, raw lines.
 */
export interface AdrSource {
  frontmatter: Record<string, unknown>;
  title: string;
  headings: { level: number; text: string; line: number }[];
  /** 1-based file lines inside fenced code blocks (fences included): examples, never rules. */
  codeLines: Set<number>;
  /** Raw body lines (after frontmatter). */
  lines: string[];
  /** 1-based file line of `lines[0]`. */
  bodyStartLine: number;
  status?: string;
}

export function sourceFromNote(note: ParsedNote): AdrSource {
  const codeLines = new Set<number>();
  for (const b of note.blocks) if (b.kind === 'code') for (let l = b.line; l <= b.endLine; l++) codeLines.add(l);
  return {
    frontmatter: note.frontmatter,
    title: note.title,
    headings: note.headings,
    codeLines,
    lines: note.lines,
    bodyStartLine: note.bodyStartLine,
    status: extractStatus(note) ?? listItemStatus(note.lines),
  };
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const STATUS_LINE = /^\s*(?:[-*+]\s+)?[*_]*status[*_]*\s*[:：]\s*[*_]*(.+)$/i;

export function scanAdr(raw: string, relPath: string): AdrSource {
  const all = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  const frontmatter: Record<string, unknown> = {};
  let bodyStart = 0;
  if (/^---[ \t]*$/.test(all[0] ?? '')) {
    const end = all.findIndex((l, i) => i > 0 && /^(---|\.\.\.)[ \t]*$/.test(l));
    if (end > 0) {
      for (const l of all.slice(1, end)) {
        const m = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$/.exec(l);
        if (m) frontmatter[m[1]] = scalar(m[2]);
      }
      bodyStart = end + 1;
    }
  }
  const lines = all.slice(bodyStart);
  const bodyStartLine = bodyStart + 1;
  const headings: AdrSource['headings'] = [];
  const codeLines = new Set<number>();
  let fence: RegExp | undefined; // the closing line of the open fence, compiled once per fence
  lines.forEach((l, i) => {
    const fileLine = bodyStartLine + i;
    if (fence) {
      codeLines.add(fileLine);
      if (fence.test(l)) fence = undefined;
      return;
    }
    const f = FENCE_OPEN.exec(l);
    if (f) {
      fence = new RegExp(`^ {0,3}${f[1][0] === '`' ? '`' : '~'}{${f[1].length},}[ \\t]*$`);
      codeLines.add(fileLine);
      return;
    }
    const h = ATX.exec(l);
    if (h) headings.push({ level: h[1].length, text: (h[2] ?? '').trim(), line: fileLine });
  });
  const fmTitle = typeof frontmatter.title === 'string' && frontmatter.title.trim() ? frontmatter.title.trim() : undefined;
  const title = fmTitle ?? headings.find((h) => h.level === 1)?.text ?? relPath.slice(relPath.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  return { frontmatter, title, headings, codeLines, lines, bodyStartLine, status: statusOf(frontmatter, headings, codeLines, lines, bodyStartLine) };
}

function scalar(v: string): unknown {
  let s = v.trim();
  if (!s) return '';
  if ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))) return s.slice(1, -1);
  s = s.replace(/\s+#.*$/, '');
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  return s;
}

/** Same order as the shared status reader: frontmatter, then a `## Status` section's first line, then a `Status:` line. */
function statusOf(fm: Record<string, unknown>, headings: AdrSource['headings'], code: Set<number>, lines: string[], start: number): string | undefined {
  if (typeof fm.status === 'string' && fm.status.trim()) return clean(fm.status);
  const h = headings.find((x) => /^status$/i.test(x.text));
  if (h) {
    for (let fileLine = h.line + 1; fileLine < start + lines.length; fileLine++) {
      const l = lines[fileLine - start];
      if (ATX.test(l) && !code.has(fileLine)) break;
      if (l.trim()) return clean(l);
    }
  }
  return listItemStatus(lines);
}

export function listItemStatus(lines: string[]): string | undefined {
  for (const line of lines.slice(0, 40)) {
    const m = STATUS_LINE.exec(line);
    if (m) return clean(m[1]);
  }
  return undefined;
}

/**
 * Drops emphasis and leading emoji / punctuation ("✅ **Accepted**" → "Accepted"). A code-point loop rather than
 * a `\p{L}` regex: compiling Unicode property classes measured ~6 ms in a cold hook process.
 */
function clean(s: string): string {
  const t = s.replace(/[*_`]/g, '');
  let i = 0;
  for (const ch of t) {
    const cp = ch.codePointAt(0)!;
    const ascii = (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
    const letterish = (cp >= 0xc0 && cp < 0x2000) || (cp >= 0x3040 && cp < 0xfe00) || (cp >= 0xff00 && cp < 0x1f000);
    if (ascii || letterish) break;
    i += ch.length;
  }
  return t.slice(i).trim();
}
