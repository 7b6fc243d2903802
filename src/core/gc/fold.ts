/**
 * What stays in context when a big text is folded to an offload node: its head, its tail and every distinct
 * error line, each excerpt line verbatim (ANSI stripped) so a resumed agent can still quote the exact error
 * and jump to its `file:line`. Errors repeated a hundred times (rustc's 96 × `error[E0308]`) are kept once.
 */
import { stripAnsi } from '../offload';

/** A line that reports a failure, in any of the toolchains the offload analyser knows (and their test runners). */
const ERROR_LINE =
  /(?:\berror(?:\[[A-Z]?\d+\])?:|\berror TS\d+|^\s*error\b|\bERROR\b|\bFAIL(?:ED)?\b|^\s*E\s{2,}|\b[A-Z][A-Za-z]*(?:Error|Exception|Group)\b:|\bpanic(?:ked)?\b[: ]|\bfatal error\b|undefined reference to|\bERR_[A-Z_]{3,}\b|WARNING: DATA RACE|AddressSanitizer|runtime error:|\bassert(?:ion)? failed|\*\*\* \[.*\] Error \d+|\bnot ok\b|✖|✗)/;
/** Compiler command lines mention -Werror and -o error.o; they are not failures (a diagnostic's `[-Werror=x]` is). */
const NOT_ERROR = /(?:^\s*(?:\/usr\/bin\/)?(?:c\+\+|g\+\+|gcc|clang\+?\+?|cc)\s+-|\berrors?\s*[:=]\s*0\b|\b0 (?:failed|errors?)\b)/;

const MAX_EXCERPT_LINE = 400;
/** The location line rustc, gcc notes and Go vet print right under a message. */
const LOCATION_LINE = /^\s*(?:-->|::: |at )\s*\S+:\d+/;
export const TEST_SUMMARY_LINE =
  /(?:\b\d+ (?:passed|failed|xfailed|xpassed|skipped|errors?)\b|test result:|^ok\s+\S|^(?:FAIL|PASS)\s*$|^(?:FAIL|ok)\s+\S+\s+[\d.]+s$|^--- (?:PASS|FAIL): \w+ \(|tests? passed|^# (?:pass|fail|tests) \d+|^Tests:|^ℹ (?:pass|fail|tests) \d+)/;
const MAX_SUMMARIES = 6;
const TEST_STATUS = /\b(?:ok|PASS(?:ED)?|FAIL(?:ED)?|passed|failed|not ok)\b|[✔✖]/;
/** A typed sentence: capital start, sentence end, none of the brackets, timestamps and `key=value` of log lines. */
const WORD = /^[("'`*]?[A-Za-z][a-z'’-]*[.,;:!?)"'`*]*$/;
const LOG_MARK = /\d{2}:\d{2}:\d{2}|\b(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\b/;

/** A line a person typed: mostly plain words (a compiler command, a log or code line is mostly not). */
function isTypedLine(line: string): boolean {
  const tokens = line.trim().split(/\s+/);
  if (tokens.length < 5 || LOG_MARK.test(line)) return false;
  return tokens.filter((t) => WORD.test(t)).length / tokens.length >= 0.7;
}
const PROSE_LINE = /^[A-Z][a-z'’]*\b[^=\[\]{}<>|\\]{3,300}[.?!]$/;

export interface Excerpt {
  head: string[];
  tail: string[];
  /** Distinct error lines with their 1-based line number in the raw text. */
  errors: { line: number; text: string }[];
  /** Test-run totals (`test result: ok. 96 passed`, `4 passed in 1.2s`), distinct. */
  summaries: string[];
  /** Error lines not shown (over the cap). */
  moreErrors: number;
  lines: number;
}

export interface ExcerptLimits {
  head: number;
  tail: number;
  maxErrors: number;
}

export const HOT_EXCERPT: ExcerptLimits = { head: 6, tail: 6, maxErrors: 24 };
export const WARM_EXCERPT: ExcerptLimits = { head: 0, tail: 2, maxErrors: 8 };

const clip = (s: string) => (s.length > MAX_EXCERPT_LINE ? `${s.slice(0, MAX_EXCERPT_LINE - 1)}…` : s);

export function isErrorLine(line: string): boolean {
  return ERROR_LINE.test(line) && !NOT_ERROR.test(line);
}

/** One pass over the text; holds only the excerpt, whatever the size of the text. */
export function excerptOf(text: string, limits: ExcerptLimits, watchTests: ReadonlySet<string> = new Set()): Excerpt {
  const head: string[] = [];
  const tailRing: string[] = [];
  const errors: { line: number; text: string }[] = [];
  const seen = new Set<string>();
  const summaries: string[] = [];
  const watched: string[] = [];
  let moreErrors = 0;
  let n = 0;
  let pending: { line: number; text: string } | undefined;
  const flush = () => {
    if (!pending) return;
    // The same message with other numbers (line, count, address) is the same error for the reader.
    const key = pending.text.replace(/\d+/g, '#');
    if (!seen.has(key)) {
      seen.add(key);
      if (errors.length < limits.maxErrors) errors.push({ line: pending.line, text: clip(pending.text) });
      else moreErrors++;
    }
    pending = undefined;
  };
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    if (end > start || nl >= 0) {
      n++;
      // Only the first 4 KB of a line is looked at: a minified bundle line is not an error report.
      const raw = text.slice(start, Math.min(end, start + 4096));
      const line = stripAnsi(raw).replace(/\r/g, '').trimEnd();
      if (head.length < limits.head) head.push(clip(line));
      else if (limits.tail > 0) {
        tailRing.push(clip(line));
        if (tailRing.length > limits.tail) tailRing.shift();
      }
      if (pending && LOCATION_LINE.test(line)) {
        // rustc / gcc notes put the location under the message: keep them together.
        pending.text = `${pending.text} ${line.trim()}`;
        flush();
      } else if (pending && n - pending.line >= 3) flush();
      if (line && isErrorLine(line)) {
        flush();
        pending = { line: n, text: line.trim() };
      } else if (line && summaries.length < MAX_SUMMARIES && TEST_SUMMARY_LINE.test(line) && !summaries.includes(line.trim())) summaries.push(clip(line.trim()));
      else if (line && watched.length < MAX_SUMMARIES && watchTests.size && TEST_STATUS.test(line) && [...watchTests].some((t) => line.includes(t))) watched.push(clip(line.trim()));
    }
    if (nl < 0 || nl === text.length - 1) break;
    start = nl + 1;
  }
  flush();
  // Head lines that are also the tail (short texts) are not repeated.
  const tail = tailRing.slice(Math.max(0, tailRing.length - Math.max(0, n - head.length)));
  // The status lines of the tests the session added come first: they are what the agent was checking.
  return { head, tail, errors, moreErrors, summaries: [...watched, ...summaries], lines: n };
}

export function renderExcerpt(nodeId: string, ex: Excerpt, what: string): string {
  const out = [`[k0maru: ${ex.lines} lines offloaded → ${nodeId}${what ? ` · ${what}` : ''}; inspect_log_node for the raw text]`];
  if (ex.head.length) out.push('head:', ...ex.head.map((l) => `  ${l}`));
  if (ex.summaries.length) out.push('test totals:', ...ex.summaries.map((l) => `  ${l}`));
  if (ex.errors.length) {
    out.push(`errors (${nodeId}, log line):`);
    for (const e of ex.errors) out.push(`  L${e.line}: ${e.text}`);
    if (ex.moreErrors) out.push(`  … ${ex.moreErrors} more distinct error lines in ${nodeId}`);
  }
  // Tail lines already shown as errors are not repeated.
  const tail = ex.tail.filter((l) => !ex.errors.some((e) => e.text === l.trim()));
  if (tail.length) out.push('tail:', ...tail.map((l) => `  ${l}`));
  return out.join('\n');
}

export interface PasteSplit {
  /** The prose kept verbatim around the pasted block. */
  before: string;
  paste: string;
  after: string;
}

/**
 * Finds the pasted block in a message: the biggest fenced block over `threshold` lines, else everything between
 * a short leading paragraph and a short trailing paragraph when that middle is over `threshold` lines.
 */
export function splitPaste(content: string, threshold: number): PasteSplit | undefined {
  const lines = content.split('\n');
  if (lines.length <= threshold) return undefined;
  let best: [number, number] | undefined;
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*(```|~~~)/.test(lines[i])) continue;
    const fence = lines[i].trim().slice(0, 3);
    let j = i + 1;
    while (j < lines.length && !lines[j].trim().startsWith(fence)) j++;
    if (j - i - 1 > threshold && (!best || j - i > best[1] - best[0])) best = [i, Math.min(j, lines.length - 1)];
    i = j;
  }
  if (best) {
    return { before: lines.slice(0, best[0] + 1).join('\n'), paste: lines.slice(best[0] + 1, best[1]).join('\n'), after: lines.slice(best[1]).join('\n') };
  }
  const PROSE = 8;
  let lead = 0;
  const firstBlank = lines.findIndex((l) => !l.trim());
  if (firstBlank > 0 && firstBlank <= PROSE) lead = firstBlank + 1;
  let trail = lines.length;
  let lastBlank = -1;
  for (let i = lines.length - 1; i >= lead; i--) if (!lines[i].trim() && i < lines.length - 1) { lastBlank = i; break; }
  if (lastBlank >= lead && lines.length - lastBlank - 1 <= PROSE) trail = lastBlank;
  else {
    // A question typed right under the paste, without a blank line: sentences, not log lines.
    while (trail > lead && lines.length - trail < 3 && PROSE_LINE.test(lines[trail - 1].trim())) trail--;
  }
  if (trail - lead <= threshold) return undefined;
  // A long message the user typed (a spec, a list of requirements) is not a paste: fold only log- or code-like text.
  let prose = 0;
  for (let i = lead; i < trail; i++) if (isTypedLine(lines[i])) prose++;
  if (prose * 2 >= trail - lead) return undefined;
  return { before: lines.slice(0, lead).join('\n'), paste: lines.slice(lead, trail).join('\n'), after: lines.slice(trail).join('\n') };
}
