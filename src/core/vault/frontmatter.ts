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
const CLOSING_FENCE = /^(---|\.\.\.)[ \t]*$/;

/**
 * Splits `---` YAML frontmatter from the body. Invalid YAML is never fatal: the block stays part of the body
 * (so it is still searchable) and the error carries the file line to report.
 */
export function parseFrontmatter(text: string): FrontmatterResult {
  // Only the block's own lines are looked at: splitting the whole note into lines here and joining the body back
  // cost as much as reading the YAML (the body is sliced out of the text instead, which is the same string).
  const firstEnd = text.indexOf('\n');
  if (firstEnd < 0 || !FENCE.test(text.slice(0, firstEnd))) return { data: {}, body: text, bodyStartLine: 1 };
  let end = -1;
  let lineStart = firstEnd + 1;
  let closeStart = -1;
  for (let i = 1; ; i++) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? text.length : nl;
    if (CLOSING_FENCE.test(text.slice(lineStart, lineEnd))) {
      end = i;
      closeStart = lineStart;
      lineStart = nl < 0 ? text.length : nl + 1;
      break;
    }
    if (nl < 0) break;
    lineStart = nl + 1;
  }
  if (end < 0) return { data: {}, body: text, bodyStartLine: 1, error: { line: 1, message: 'frontmatter block is not closed with ---' } };
  const yamlText = end === 1 ? '' : text.slice(firstEnd + 1, closeStart - 1);
  // js-yaml reads ~9x faster than the `yaml` package, which matters on a cold index of thousands of notes;
  // `yaml` stays for writing, where keeping the author's formatting matters more than speed. The common
  // frontmatter (flat `key: word`, a quoted title, a date, a flow list of tags) is read without either.
  let value: unknown = readSimpleYaml(yamlText);
  if (value === undefined) {
    try {
      value = load(yamlText, { json: true });
    } catch (err) {
      const e = err as YAMLException;
      const line = (e.mark?.line ?? 0) + 2; // 0-based inside the block, +1 for the opening fence
      return { data: {}, body: text, bodyStartLine: 1, error: { line, message: e.reason ?? String(e.message).split('\n')[0] } };
    }
  }
  const data = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  if (value !== null && value !== undefined && data !== value) {
    return { data: {}, body: text, bodyStartLine: 1, error: { line: 2, message: 'frontmatter is not a YAML mapping' } };
  }
  return { data, body: text.slice(lineStart), bodyStartLine: end + 2 };
}

// The fast path accepts only what it reads exactly as js-yaml's default schema does and returns undefined for
// anything else (nesting, comments, escapes, anchors, block scalars, numbers with signs or exponents, keys seen
// twice, …), which then goes to js-yaml. test/unit/core/parseEquivalence.test.ts holds the two to the same output.
const SIMPLE_LINE = /^([A-Za-z][A-Za-z0-9_-]*):(?: +(.*))?$/;
/** A block plain scalar that cannot be a number, date, bool, null or contain a comment or a mapping. */
const PLAIN = /^[\p{L}][\p{L}\p{N} _.,/()'-]*$/u;
const FLOW_PLAIN = /^[\p{L}][\p{L}\p{N}_./-]*$/u;
/** Double-quoted with no escapes and only printable characters js-yaml accepts as they are. */
const DQ = /^"([^"\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]*)"$/;
const SQ = /^'([^'\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]*)'$/;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const SMALL_INT = /^(?:0|[1-9][0-9]{0,14})$/;
const RESERVED = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

function readSimpleYaml(src: string): Record<string, unknown> | undefined {
  if (!src) return undefined;
  const out: Record<string, unknown> = {};
  let start = 0;
  while (start <= src.length) {
    const nl = src.indexOf('\n', start);
    const line = src.slice(start, nl < 0 ? src.length : nl);
    const m = SIMPLE_LINE.exec(line);
    if (!m || RESERVED.test(m[1]) || Object.prototype.hasOwnProperty.call(out, m[1])) return undefined;
    const v = m[2] === undefined ? null : simpleScalar(m[2], false);
    if (v === undefined) return undefined;
    out[m[1]] = v;
    if (nl < 0) break;
    start = nl + 1;
  }
  return out;
}

function simpleScalar(s: string, inFlow: boolean): unknown {
  let m: RegExpExecArray | null;
  if ((inFlow ? FLOW_PLAIN : PLAIN).test(s)) return RESERVED.test(s) || s.endsWith(' ') ? undefined : s;
  if ((m = DQ.exec(s)) || (m = SQ.exec(s))) return m[1];
  if (inFlow) return undefined;
  if ((m = DATE.exec(s))) return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (SMALL_INT.test(s)) return Number(s);
  if (s.startsWith('[') && s.endsWith(']')) {
    const inner = s.slice(1, -1).trim();
    if (!inner) return [];
    const items: unknown[] = [];
    for (const part of inner.split(',')) {
      const v = simpleScalar(part.trim(), true);
      if (v === undefined) return undefined;
      items.push(v);
    }
    return items;
  }
  return undefined;
}
