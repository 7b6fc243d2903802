import type { PatternSpec } from './types';

/**
 * Pattern matching for rules. Literals use indexOf. Every regex is validated by RE2 (re2-wasm) and, unless it is
 * "simple", runs on RE2, which is linear-time, so an ADR author cannot hang a commit with `(a+)+$`. Crossing into
 * WASM costs microseconds per call and RE2-in-WASM scans ~30 MB/s, so:
 *  - each regex gets a prefilter: a literal every match must contain, found with indexOf; only the few lines that
 *    contain it are matched at all;
 *  - a simple regex (no alternation, no quantified group, at most one variable-length quantifier, only common
 *    escapes — see `isSimpleRegex`) runs on V8's engine one line at a time: with those limits backtracking is
 *    bounded by O(L²) for a line of L characters, and lines longer than MAX_JS_LINE go to RE2 anyway.
 */
const MAX_JS_LINE = 2000;

interface Re2Like {
  lastIndex: number;
  exec(input: string): (string | undefined)[] & { index: number } | null;
}
type Re2Ctor = new (src: string, flags: string) => Re2Like;

let re2Ctor: Re2Ctor | undefined;
function loadRe2(): Re2Ctor {
  // Loaded on first use: the WASM costs ~25 ms and many hook runs never meet a regex rule's prefilter.
  // In the bundle, re2-wasm resolves re2.wasm beside dist/cli.js (esbuild.mjs copies it there).
  // A literal require() so esbuild bundles the module while still loading it lazily.
  re2Ctor ??= (require('re2-wasm') as { RE2: Re2Ctor }).RE2;
  return re2Ctor;
}

/** Error text when the engine that will run the regex rejects it (RE2 refuses backreferences, lookaround, …). */
export function validateRegex(source: string, ignoreCase: boolean): string | undefined {
  // A simple regex runs on V8 (see isSimpleRegex): V8 accepting it is the check, and RE2 need not load at all.
  if (isSimpleRegex(source) && tryJsRegex(source, ignoreCase)) return undefined;
  try {
    new (loadRe2())(source, ignoreCase ? 'iu' : 'u');
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '').trim() || 'invalid';
  }
}

export interface Hit {
  index: number;
  length: number;
}

export interface CompiledPattern {
  spec: PatternSpec;
  /** Case-folded literal that every match contains (the literal itself for literal patterns). */
  needle?: string;
  foldCase: boolean;
  /** All matches inside one line (no newlines). */
  matchLine(line: string): Hit[];
  /** Next match at or after `from` in a multi-line text (`^`/`$` at line ends), for regexes without a needle. */
  nextInText?(text: string, from: number): Hit | undefined;
  /** True when lines are matched by V8 (cheap per call): the engine then scans line by line. */
  cheapPerLine: boolean;
}

export function compilePattern(spec: PatternSpec): CompiledPattern {
  if (spec.type === 'literal') {
    const fold = spec.ignoreCase;
    const needle = fold ? spec.source.toLowerCase() : spec.source;
    return {
      spec,
      needle,
      foldCase: fold,
      cheapPerLine: true,
      matchLine(line) {
        const hay = fold ? line.toLowerCase() : line;
        const hits: Hit[] = [];
        for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + Math.max(1, needle.length))) {
          hits.push({ index: i, length: needle.length });
        }
        return hits;
      },
    };
  }
  const inlineCase = /\(\?[a-z]*i/.test(spec.source);
  const fold = spec.ignoreCase || inlineCase;
  const lit = requiredLiteral(spec.source);
  let re: Re2Like | undefined;
  let reText: Re2Like | undefined;
  const js = isSimpleRegex(spec.source) ? tryJsRegex(spec.source, spec.ignoreCase) : undefined;
  return {
    spec,
    cheapPerLine: !!js,
    nextInText(text, from) {
      reText ??= new (loadRe2())(spec.source, spec.ignoreCase ? 'gimu' : 'gmu');
      reText.lastIndex = from;
      const m = reText.exec(text);
      return m ? { index: m.index, length: (m[0] ?? '').length } : undefined;
    },
    needle: lit ? (fold ? lit.toLowerCase() : lit) : undefined,
    foldCase: fold,
    matchLine(line) {
      if (js && line.length <= MAX_JS_LINE) return jsHits(js, line);
      re ??= new (loadRe2())(spec.source, spec.ignoreCase ? 'giu' : 'gu');
      const hits: Hit[] = [];
      re.lastIndex = 0;
      for (let m = re.exec(line); m; m = re.exec(line)) {
        const len = (m[0] ?? '').length;
        hits.push({ index: m.index, length: len });
        if (len === 0) re.lastIndex = m.index + 1; // an empty match must not loop forever
        if (re.lastIndex > line.length) break;
      }
      return hits;
    },
  };
}

function tryJsRegex(source: string, ignoreCase: boolean): RegExp | undefined {
  try {
    return new RegExp(source, ignoreCase ? 'giu' : 'gu');
  } catch {
    return undefined; // RE2-only syntax: RE2 runs it
  }
}

function jsHits(re: RegExp, line: string): Hit[] {
  const hits: Hit[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    hits.push({ index: m.index, length: m[0].length });
    if (m[0].length === 0) re.lastIndex = m.index + 1;
  }
  return hits;
}

/**
 * Conservative test for "V8 cannot backtrack badly on this": no `|`, no quantifier after a group, at most one
 * variable-length quantifier (`*`, `+`, `?`, `{m,n}` with m ≠ n), no `(?` other than `(?:`, no POSIX classes,
 * and only the escapes both engines read the same way. Anything else runs on RE2.
 */
export function isSimpleRegex(src: string): boolean {
  let variable = 0;
  let prevWasGroupEnd = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      if (/[A-Za-z0-9]/.test(n) && !/[dDwWsSbBtnrfv]/.test(n)) return false;
      i++;
      prevWasGroupEnd = false;
      continue;
    }
    if (c === '[') {
      const end = skipClass(src, i);
      if (end < 0) return false;
      if (src.slice(i, end).includes('[:')) return false;
      i = end - 1;
      prevWasGroupEnd = false;
      continue;
    }
    if (c === '|') return false;
    if (c === '(') {
      if (src[i + 1] === '?' && src[i + 2] !== ':') return false;
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
        if (!m) return false;
        isVariable = m[2] !== undefined && m[3] !== m[1];
        i += m[0].length - 1;
      }
      if (src[i + 1] === '?') i++; // lazy form of the same quantifier
      if (prevWasGroupEnd) return false;
      if (isVariable && ++variable > 1) return false;
      continue;
    }
    prevWasGroupEnd = false;
  }
  return true;
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
