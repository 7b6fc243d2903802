// Frozen copy of the parse/chunk code as of commit 5809ead (before the parse-speed work of issue 17): the reference
// test/unit/core/parseEquivalence.test.ts compares the live code against. Do not optimise or "fix" this copy.
import { load, YAMLException } from 'js-yaml';

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
  // js-yaml reads ~9x faster than the `yaml` package, which matters on a cold index of thousands of notes;
  // `yaml` stays for writing, where keeping the author's formatting matters more than speed.
  let value: unknown;
  try {
    value = load(yamlText, { json: true });
  } catch (err) {
    const e = err as YAMLException;
    const line = (e.mark?.line ?? 0) + 2; // 0-based inside the block, +1 for the opening fence
    return { data: {}, body: text, bodyStartLine: 1, error: { line, message: e.reason ?? String(e.message).split('\n')[0] } };
  }
  const data = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  if (value !== null && value !== undefined && data !== value) {
    return { data: {}, body: text, bodyStartLine: 1, error: { line: 2, message: 'frontmatter is not a YAML mapping' } };
  }
  return { data, body: lines.slice(end + 1).join('\n'), bodyStartLine: end + 2 };
}
