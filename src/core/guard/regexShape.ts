/**
 * What a regex source looks like to the engines: whether V8 and RE2 read it alike, whether V8 runs it in linear
 * time, and the literal every match must contain (the prefilter). Pure string analysis; nothing is compiled here.
 */

/** Counted repetitions above this go to RE2 (and RE2 itself refuses counts above 1000). */
const MAX_V8_COUNT = 100;
/** Longer sources are validated by RE2 itself: its program-size limit is not something V8 can tell. */
const MAX_SHARED_SOURCE = 500;

export interface RegexShape {
  /**
   * The regex uses only syntax both engines read the same way: no `(?` other than `(?:`, no POSIX classes, only
   * the escapes `\d \D \w \W \s \S \b \B \t \n \r \f \v` and escaped punctuation (inside classes only
   * `\d \D \w \W \s \S \t \n \r \f \v`), counts of at most 100. V8 accepting it means RE2 does too.
   */
  shared: boolean;
  /**
   * V8 runs it in time linear in the line: shared syntax, no `|`, no quantifier on a group, and either no
   * variable-length quantifier (`*`, `+`, `?`, `{m,n}` with m ≠ n) or exactly one with the regex anchored by a
   * leading `^` (lines are matched one at a time, without the `m` flag, so `^` is the line start).
   */
  linearOnV8: boolean;
  /**
   * V8 runs it in linear time from any one start position: shared syntax, no `|`, no quantifier on a group, at
   * most one variable-length quantifier (linearOnV8 adds: and then anchored, so there is one start position).
   */
  linearFromOneStart: boolean;
}

export function analyzeRegex(src: string): RegexShape {
  const no: RegexShape = { shared: false, linearOnV8: false, linearFromOneStart: false };
  if (src.length > MAX_SHARED_SOURCE) return no;
  let variable = 0;
  let alternation = false;
  let quantifiedGroup = false;
  let prevWasGroupEnd = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      if (!n) return no;
      if (/[A-Za-z0-9]/.test(n) && !/[dDwWsSbBtnrfv]/.test(n)) return no;
      i++;
      prevWasGroupEnd = false;
      continue;
    }
    if (c === '[') {
      const end = skipClass(src, i);
      if (end < 0) return no;
      const body = src.slice(i + 1, end - 1);
      // POSIX classes are RE2-only; a leading `]` is a literal to RE2 but closes an empty class in V8.
      if (body.includes('[:') || body.startsWith(']') || body.startsWith('^]')) return no;
      // `[\b]` is a backspace to V8 and an error to RE2; other letter escapes differ too.
      for (let j = 0; j < body.length; j++) {
        if (body[j] !== '\\') continue;
        const e = body[++j] ?? '';
        if (/[A-Za-z0-9]/.test(e) && !/[dDwWsStnrfv]/.test(e)) return no;
      }
      i = end - 1;
      prevWasGroupEnd = false;
      continue;
    }
    if (c === '|') {
      alternation = true;
      prevWasGroupEnd = false;
      continue;
    }
    if (c === '(') {
      if (src[i + 1] === '?' && src[i + 2] !== ':') return no;
      prevWasGroupEnd = false;
      continue;
    }
    if (c === ')') {
      prevWasGroupEnd = true;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      let isVariable = c !== '{';
      if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
        if (!m) return no;
        if (Number(m[1]) > MAX_V8_COUNT || (m[3] && Number(m[3]) > MAX_V8_COUNT)) return no;
        isVariable = m[2] !== undefined && m[3] !== m[1];
        i += m[0].length - 1;
      }
      if (src[i + 1] === '?') i++; // lazy form of the same quantifier
      if (prevWasGroupEnd) quantifiedGroup = true;
      if (isVariable) variable++;
      prevWasGroupEnd = false;
      continue;
    }
    prevWasGroupEnd = false;
  }
  const linearFromOneStart = !alternation && !quantifiedGroup && variable <= 1;
  const linearOnV8 = linearFromOneStart && (variable === 0 || src.startsWith('^'));
  return { shared: true, linearOnV8, linearFromOneStart };
}

/**
 * The literal every match starts with (after `\b` / `\B`), when the regex is linear from one start position:
 * on a line where that literal occurs at exactly one position, a match can only start there, so V8 tries one
 * start as it does for a `^`-anchored regex (the other positions fail within the literal's length). Then V8 may
 * run it instead of RE2 — whose WASM costs a one-shot hook ~40 ms to load — for lines that do not repeat the
 * literal. Only case-sensitive printable ASCII literals: indexOf then finds exactly the positions V8 would.
 */
export function pinnedPrefix(src: string): string | undefined {
  if (!analyzeRegex(src).linearFromOneStart) return undefined;
  let i = 0;
  while (src.startsWith('\\b', i) || src.startsWith('\\B', i)) i += 2;
  let lit = '';
  const isQuant = (c: string | undefined) => c === '*' || c === '+' || c === '?' || c === '{';
  while (i < src.length) {
    const c = src[i];
    let ch: string;
    let width: number;
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      if (!/^[!-/:-@[-`{-~]$/.test(n)) break; // \s, \d, … end the literal; only escaped punctuation is one
      ch = n;
      width = 2;
    } else if ('^$.|?*+()[]{}'.includes(c)) break;
    else {
      ch = c;
      width = 1;
    }
    if (isQuant(src[i + width])) break; // `ab+`: the `b` may repeat, the literal is `a`
    if (!/^[\x20-\x7e]$/.test(ch)) break;
    lit += ch;
    i += width;
  }
  return lit.length >= 2 ? lit : undefined;
}

function skipClass(src: string, start: number): number {
  for (let i = start + 1; i < src.length; i++) {
    if (src[i] === '\\') {
      i++;
      continue;
    }
    if (src[i] === ']' && i > start + 1 && !(i === start + 2 && src[start + 1] === '^')) return i + 1;
  }
  return -1;
}

/**
 * The longest run of characters that every match of `src` must contain, or undefined when the regex has a
 * top-level alternation or no literal at all. Conservative: anything unclear ends a run, so the prefilter can
 * only let extra lines through, never drop a line that matches.
 */
export function requiredLiteral(src: string): string | undefined {
  const runs: string[] = [];
  let run = '';
  const flush = () => {
    if (run) runs.push(run);
    run = '';
  };
  const isQuant = (c: string | undefined) => c === '*' || c === '+' || c === '?' || c === '{';
  let i = 0;
  const skipQuantifier = (): boolean => {
    // Returns true when the quantifier allows zero repetitions.
    const c = src[i];
    if (!isQuant(c)) return false;
    let optional = c === '*' || c === '?';
    if (c === '{') {
      const m = /^\{(\d*)(,?\d*)\}/.exec(src.slice(i));
      if (!m) return false; // a literal '{' in RE2 syntax is an error anyway; stay conservative
      optional = !m[1] || Number(m[1]) === 0;
      i += m[0].length;
    } else i++;
    if (src[i] === '?') i++; // lazy
    return optional;
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '|') return undefined;
    if (c === '(' || c === '[') {
      flush();
      i = skipGroup(src, i);
      if (i < 0) return undefined;
      skipQuantifier();
      continue;
    }
    if (c === '\\') {
      const n = src[i + 1];
      if (n === undefined) return undefined;
      i += 2;
      if (/[A-Za-z0-9]/.test(n)) {
        flush();
        if (n === 'x' || n === 'u' || n === 'p' || n === 'P') return pickLongest(runs); // complex escapes: stop here
        skipQuantifier();
        continue;
      }
      if (isQuant(src[i])) {
        const optional = skipQuantifier();
        if (!optional) run += n;
        flush();
        continue;
      }
      run += n;
      continue;
    }
    if (c === '.' || c === '^' || c === '$') {
      flush();
      i++;
      skipQuantifier();
      continue;
    }
    i++;
    if (isQuant(src[i])) {
      const optional = skipQuantifier();
      if (!optional) run += c;
      flush();
      continue;
    }
    run += c;
  }
  flush();
  return pickLongest(runs);
}

function pickLongest(runs: string[]): string | undefined {
  let best: string | undefined;
  for (const r of runs) if (!best || r.length > best.length) best = r;
  return best;
}

/** Index just after the group or class that starts at `start`, or -1 when it is not closed. */
function skipGroup(src: string, start: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = start; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') { i++; continue; }
    if (inClass) {
      if (c === ']' && !(src[i - 1] === '[' || (src[i - 1] === '^' && src[i - 2] === '['))) {
        inClass = false;
        if (depth === 0) return i + 1;
      }
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
