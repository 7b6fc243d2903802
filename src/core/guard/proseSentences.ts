import type { AdrSource } from './adrSource';

/**
 * The sentences of an ADR's decision text, with where each one sits in the file, for rule inference
 * (inferred.ts). Decision text = the body of a heading such as Decision, Decision Outcome, Chosen Option,
 * Rules, Policy or Guidelines, minus sub-sections that are about something else (MADR's
 * `### Positive Consequences` under `## Decision Outcome`, a `### Option 2` …). Context, Considered Options,
 * Pros and Cons, Consequences, Status and Links are never decision text: sentences there describe the
 * problem, the alternatives or what follows, and must not become rules.
 */

const DECISION = /^(?:(?:the|our|final)\s+)?(?:decisions?(?:\s+(?:outcome|made|record))?|chosen\s+(?:option|solution|approach)|selected\s+(?:option|approach)|resolution|rules?|polic(?:y|ies)|guidelines?|guidance|conventions?|standards?|agreements?|(?:what\s+)?we\s+(?:decided|agreed|will\s+do)|invariants?|guard(?:\s*rules)?|guardrails|k-dsl\s+invariants?|recommendations?)\b/i;
const NOT_DECISION = /^(?:(?:the|our)\s+)?(?:context|problem|background|motivation|considered|options?\b|alternatives?|pros?\b|cons\b|consequences|positive|negative|neutral|status|links?|references?|notes?|decision\s+drivers?|drivers?|more\s+information|examples?|history|related|drawbacks?|discussion|risks?|trade-?offs?|confirmation|implications?|open\s+questions?|questions?|prior\s+art|assumptions?|constraints?|forces|rationale|justification|evaluation|comparison|impact|outcomes?\s+of|future|follow-?ups?|next\s+steps|changelog|appendix)/i;

export type SectionClass = 'decision' | 'other' | 'neutral';

export function classifyHeading(text: string): SectionClass {
  const t = text.replace(/[*_`[\]]/g, '').replace(/<!--.*?-->/g, '').replace(/^[\d.)\s]+/, '').replace(/^(?:adr[-\s]?\d+\s*[:.-]\s*)/i, '').trim();
  if (/^(?:decision\s+drivers?|decision\s+criteria)\b/i.test(t)) return 'other';
  // "General consequences", "Green impact", "Reason for rejection", "Advantages": about the decision, not it.
  if (/\b(?:consequences?|advantages?|disadvantages?|rejection|rejected|drawbacks?|benefits?|impacts?|pros|cons|trade-?offs?|alternatives?|risks?)\b/i.test(t)) return 'other';
  if (DECISION.test(t)) return 'decision';
  if (NOT_DECISION.test(t)) return 'other';
  return 'neutral';
}

/** Cheap test on the raw file: does any heading name decision text? (Used before parsing, like GUARD_SECTION_RE.) */
export const DECISION_HEADING_RE = /^#{1,6}[ \t]+(?:\d+[.)]?[ \t]*)?(?:(?:the|our|final)[ \t]+)?(?:decision|chosen|selected|resolution|rules?\b|polic|guideline|guidance|convention|standard|agreement|we[ \t]+(?:decided|agreed)|recommendation)/im;

/**
 * Whether a note without a guard section is worth parsing for inferred rules: a decision heading and a code
 * span somewhere. The hook reads every note of the vault; most notes name no code, and parsing them anyway
 * measured +20–50 ms on a 500-note vault in a cold process.
 */
export function mayInferRules(raw: string): boolean {
  return raw.includes('`') && DECISION_HEADING_RE.test(raw);
}

export interface ProseSentence {
  /** As written (code spans, emphasis and links kept; lines joined by one space). */
  text: string;
  /** 1-based file line / 0-based column of its first character. */
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  /** The heading of the decision section it is in. */
  section: string;
  /** True when that section is a guard section (Invariants / Rules / Guard …) where explicit rules live. */
  inGuardSection: boolean;
}

interface Piece {
  text: string;
  line: number;
  col: number;
}

const GUARD_HEADING = /^(invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?)\b/i;
const ITEM = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/;

/** Which file lines are decision text, and the heading they are under. */
function decisionLines(note: AdrSource): Map<number, { heading: string; guard: boolean }> {
  const out = new Map<number, { heading: string; guard: boolean }>();
  const last = note.bodyStartLine + note.lines.length - 1;
  const stack: { level: number; cls: SectionClass; text: string }[] = [];
  const hs = note.headings.filter((h) => !note.codeLines.has(h.line));
  hs.forEach((h, i) => {
    while (stack.length && stack[stack.length - 1].level >= h.level) stack.pop();
    stack.push({ level: h.level, cls: classifyHeading(h.text), text: h.text });
    const owner = [...stack].reverse().find((s) => s.cls !== 'neutral');
    if (!owner || owner.cls !== 'decision') return;
    const end = i + 1 < hs.length ? hs[i + 1].line - 1 : last;
    for (let l = h.line + 1; l <= end; l++) out.set(l, { heading: owner.text, guard: GUARD_HEADING.test(owner.text.trim()) });
  });
  return out;
}

/** Lazily, so a reader that stops early (inference's caps) does not pay for the rest of a huge ADR. */
export function* decisionSentences(note: AdrSource): Generator<ProseSentence> {
  const lines = decisionLines(note);
  let para: Piece[] = [];
  let section = '';
  let guard = false;
  let inHtmlComment = false;
  const take = (): Piece[] => {
    const p = para;
    para = [];
    return p;
  };
  for (let i = 0; i < note.lines.length; i++) {
    const fileLine = note.bodyStartLine + i;
    const where = lines.get(fileLine);
    let raw = note.lines[i];
    if (!where || note.codeLines.has(fileLine)) {
      if (para.length) yield* splitParagraph(take(), section, guard);
      continue;
    }
    if (inHtmlComment) {
      if (raw.includes('-->')) inHtmlComment = false;
      if (para.length) yield* splitParagraph(take(), section, guard);
      continue;
    }
    if (/^\s*<!--/.test(raw) && !raw.includes('-->')) {
      inHtmlComment = true;
      if (para.length) yield* splitParagraph(take(), section, guard);
      continue;
    }
    raw = raw.replace(/<!--.*?-->/g, (m) => ' '.repeat(m.length));
    if (where.heading !== section && para.length) yield* splitParagraph(take(), section, guard);
    section = where.heading;
    guard = where.guard;
    if (!raw.trim() || /^\s*\|/.test(raw) || /^\s{0,3}#{1,6}\s/.test(raw) || /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/.test(raw)) {
      if (para.length) yield* splitParagraph(take(), section, guard);
      continue;
    }
    let col = 0;
    const quote = /^\s*(?:>\s?)+/.exec(raw);
    if (quote) col = quote[0].length;
    const item = ITEM.exec(raw.slice(col));
    if (item) {
      if (para.length) yield* splitParagraph(take(), section, guard);
      col += item[0].length;
    } else if (col === 0) {
      col = /^\s*/.exec(raw)![0].length;
    }
    const text = raw.slice(col).replace(/\s+$/, '');
    if (text) para.push({ text, line: fileLine, col });
  }
  if (para.length) yield* splitParagraph(take(), section, guard);
}

const ABBREV = /(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|resp|viz|ca|Mr|Ms|Dr|St|Inc|Ltd|Fig|Sec)\.|(?:^|\s)[A-Za-z]\.)$/;

/** Splits a paragraph at sentence ends (`. `, `! `, `? `) outside code spans, keeping file positions. */
function splitParagraph(pieces: Piece[], section: string, guard: boolean): ProseSentence[] {
  // One text; a character's file position comes from the piece it is in (binary search over piece starts).
  let text = '';
  const starts: number[] = [];
  pieces.forEach((p, k) => {
    if (k) text += ' ';
    starts.push(text.length);
    text += p.text;
  });
  const posOf = (i: number): { line: number; col: number } => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    const p = pieces[lo];
    return { line: p.line, col: p.col + Math.max(0, Math.min(i - starts[lo], p.text.length)) };
  };
  const inCode = new Uint8Array(text.length);
  for (let i = 0; i < text.length; ) {
    if (text[i] !== '`') {
      i++;
      continue;
    }
    let n = i;
    while (text[n] === '`') n++;
    const ticks = text.slice(i, n);
    const close = text.indexOf(ticks, i + ticks.length);
    if (close < 0) break;
    inCode.fill(1, i, close + ticks.length);
    i = close + ticks.length;
  }
  const out: ProseSentence[] = [];
  let start = 0;
  const emit = (end: number) => {
    let s = start;
    while (s < end && /\s/.test(text[s])) s++;
    let e = end;
    while (e > s && /\s/.test(text[e - 1])) e--;
    if (e > s) {
      const a = posOf(s);
      const b = posOf(e - 1);
      out.push({ text: text.slice(s, e), line: a.line, col: a.col, endLine: b.line, endCol: b.col + 1, section, inGuardSection: guard });
    }
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inCode[i] || (c !== '.' && c !== '!' && c !== '?')) continue;
    const next = text[i + 1];
    if (next !== undefined && next !== ' ') continue;
    if (c === '.' && ABBREV.test(text.slice(Math.max(0, i - 8), i + 1))) continue;
    let j = i + 1;
    while (j < text.length && text[j] === ' ') j++;
    if (j < text.length && !/[A-Z`*_"'([\d]/.test(text[j])) continue;
    emit(i + 1);
    start = i + 1;
  }
  emit(text.length);
  return out;
}
