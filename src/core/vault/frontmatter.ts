import { parseDocument } from 'yaml';

export interface FrontmatterResult {
  data: Record<string, unknown>;
  /** The text after the frontmatter block (the whole text when there is none or it is invalid). */
  body: string;
  /** 1-based line of the first body line in the whole file. */
  bodyStartLine: number;
  error?: { line: number; message: string };
}

const FENCE = /^---[ \t]*$/;

/**
 * Splits `---` YAML frontmatter from the body. Invalid YAML is never fatal: the block stays part of the body
 * (so it is still searchable) and the error carries the file line to report.
 */
export function parseFrontmatter(text: string): FrontmatterResult {
  const lines = text.split('\n');
  if (lines.length < 2 || !FENCE.test(lines[0])) return { data: {}, body: text, bodyStartLine: 1 };
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    if (/^(---|\.\.\.)[ \t]*$/.test(lines[i])) {
      end = i;
      break;
    }
  }
  if (end < 0) return { data: {}, body: text, bodyStartLine: 1, error: { line: 1, message: 'frontmatter block is not closed with ---' } };
  const yamlText = lines.slice(1, end).join('\n');
  const doc = parseDocument(yamlText, { prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = (e.linePos?.[0]?.line ?? 1) + 1; // +1 for the opening fence
    return { data: {}, body: text, bodyStartLine: 1, error: { line, message: e.message.split('\n')[0] } };
  }
  const value = doc.toJS({ maxAliasCount: 50 }) as unknown;
  const data = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  if (value !== null && value !== undefined && data !== value) {
    return { data: {}, body: text, bodyStartLine: 1, error: { line: 2, message: 'frontmatter is not a YAML mapping' } };
  }
  return { data, body: lines.slice(end + 1).join('\n'), bodyStartLine: end + 2 };
}
