import { K0Error } from '../errors';
import { LruMap } from './lru';
import type { PatternSpec } from './types';

/**
 * Pattern matching for rules, in linear time for every input. Literals use indexOf. A regex runs on V8's engine
 * only when V8 provably cannot backtrack on it (see `analyzeRegex`): a fixed-length regex (each start position
 * costs at most its width) or one anchored with `^` and holding a single variable-length quantifier (one start
 * position, at most L choices for that quantifier). Everything else — `\s+$`, `a.*b`, alternations, quantified
 * groups — runs on RE2 (re2-wasm), which is linear-time, so an ADR author cannot hang a commit with `(a+)+$` nor
 * with a "simple" `\s+$` over long lines of spaces (V8 tried every start position: O(L²) per line).
 * Crossing into WASM costs microseconds per call and RE2 copies its whole input on every call, so:
 *  - each regex gets a prefilter: a literal every match must contain, found with indexOf; only the few lines that
 *    contain it are matched at all; a regex without one is run over chunks of whole lines (engine.ts);
 *  - at most MAX_HITS_PER_LINE matches are taken from one line, and on RE2 no more than RE2_COPY_BUDGET
 *    characters are copied for one line (a 1 MB line yields its first match only), so a long line with a match
 *    every few characters cannot make RE2 copy it thousands of times;
 *  - lines longer than MAX_JS_LINE go to RE2 even when V8 could run the regex (V8's cost is linear but with the
 *    regex width as factor).
 */
const MAX_JS_LINE = 2000;
/** One rule reports at most this many matches in one line (a 1 MB minified line is still one line to fix). */
export const MAX_HITS_PER_LINE = 20;
/** Characters RE2 may copy while collecting one line's matches (each call copies the whole line). */
const RE2_COPY_BUDGET = 256 * 1024;

interface Re2Like {
  lastIndex: number;
  exec(input: string): (string | undefined)[] & { index: number } | null;
  /** The embind object behind the regex; its memory lives in the WASM heap until deleted. */
  wrapper?: { delete?(): void };
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

/** RE2 objects are not garbage-collected (embind): they must be freed explicitly. */
function freeRe2(re: Re2Like | undefined): void {
  try {
    re?.wrapper?.delete?.();
  } catch {
    // already freed
  }
}

/**
 * re2-wasm's heap is fixed at 16 MB (it cannot grow): a few hundred to a few thousand compiled regexes fill it
 * (fewer once their DFA caches warm up), and then RE2 fails. A host that checks for days sees many rules, so the
 * live RE2 objects are one pool per process, keyed by source and flags, at most RE2_POOL of them; the least
 * recently used is freed first and compiled again when it is needed again (compiling costs microseconds).
 */
export const RE2_POOL = 64;
let pool: LruMap<string, Re2Like> | undefined;

function pooledRe2(source: string, flags: string): Re2Like | undefined {
  pool ??= new LruMap<string, Re2Like>(RE2_POOL, (re) => freeRe2(re));
  const key = `${flags}/${source}`;
  let re = pool.get(key);
  if (!re) {
    re = makeRe2(source, flags);
    if (!re) {
      // Perhaps the heap is full (other hosts' objects, a DFA cache): free the pool and try once more.
      pool.clear();
      re = makeRe2(source, flags);
      if (!re) return undefined;
    }
    pool.set(key, re);
  }
  return re;
}

/** Live RE2 objects in the pool (for tests of the bound). */
export function re2PoolSize(): number {
  return pool?.size ?? 0;
}

/** Runs `fn` on the pooled RE2 object; a failure inside WASM (a full heap) frees the pool and retries once. */
function withRe2<T>(source: string, flags: string, fn: (re: Re2Like) => T, refused: () => T): T {
  for (let attempt = 0; attempt < 2; attempt++) {
    const re = pooledRe2(source, flags);
    if (!re) return refused();
    try {
      return fn(re);
    } catch {
      pool?.clear();
    }
  }
  throw new K0Error('INTERNAL', `the regex engine failed on /${source}/ twice (out of memory?)`);
}

/** Error text when the engine that will run the regex rejects it (RE2 refuses backreferences, lookaround, …). */
export function validateRegex(source: string, ignoreCase: boolean): string | undefined {
  // Inside the syntax both engines read alike, V8 accepting the regex is the check, and RE2 need not load at all
  // (the hook reads every ADR on every commit; most never meet a regex rule's prefilter).
  if (analyzeRegex(source).shared && tryJsRegex(source, ignoreCase)) return undefined;
  try {
    freeRe2(new (loadRe2())(source, ignoreCase ? 'iu' : 'u'));
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
  /** Which engine matches lines: indexOf, V8 (only regexes it runs in linear time) or RE2. */
  engine: 'literal' | 'v8' | 're2';
  /** All matches inside one line (no newlines), at most MAX_HITS_PER_LINE. */
  matchLine(line: string): Hit[];
  /** Next match at or after `from` in a multi-line text (`^`/`$` at line ends), for regexes without a needle. */
  nextInText?(text: string, from: number): Hit | undefined;
  /** True when lines are matched by V8 or indexOf (cheap per call): the engine then scans line by line. */
  cheapPerLine: boolean;
  /** Nothing to free today (RE2 objects live in the process pool); kept so owners need not know. */
  dispose(): void;
}

export function compilePattern(spec: PatternSpec): CompiledPattern {
  if (spec.type === 'literal') {
    const fold = spec.ignoreCase;
    const needle = fold ? spec.source.toLowerCase() : spec.source;
    return {
      spec,
      needle,
      foldCase: fold,
      engine: 'literal',
      cheapPerLine: true,
      matchLine(line) {
        const hay = fold ? line.toLowerCase() : line;
        const hits: Hit[] = [];
        for (let i = hay.indexOf(needle); i >= 0 && hits.length < MAX_HITS_PER_LINE; i = hay.indexOf(needle, i + Math.max(1, needle.length))) {
          hits.push({ index: i, length: needle.length });
        }
        return hits;
      },
      dispose() {},
    };
  }
  const inlineCase = /\(\?[a-z]*i/.test(spec.source);
  const fold = spec.ignoreCase || inlineCase;
  const lit = requiredLiteral(spec.source);
  const js = analyzeRegex(spec.source).linearOnV8 ? tryJsRegex(spec.source, spec.ignoreCase) : undefined;
  const jsText = js ? tryJsRegex(spec.source, spec.ignoreCase, 'gm') : undefined;
  // Should RE2 refuse a regex validation accepted (validateRegex may ask V8 alone), V8 may stand in only where it
  // runs in linear time; anything else is a rule error, never a backtracking V8 run.
  const refused = (): never => {
    throw new K0Error('RULE_INVALID', `the regex engine (RE2) refuses /${spec.source}/`);
  };
  return {
    spec,
    engine: js ? 'v8' : 're2',
    cheapPerLine: !!js,
    nextInText(text, from) {
      if (jsText) {
        // V8 runs it in linear time on any text (see analyzeRegex), and reads the string in place: one pass.
        jsText.lastIndex = from;
        const m = jsText.exec(text);
        return m ? { index: m.index, length: m[0].length } : undefined;
      }
      return withRe2(
        spec.source,
        spec.ignoreCase ? 'gimu' : 'gmu',
        (re) => {
          re.lastIndex = from;
          const m = re.exec(text);
          return m ? { index: m.index, length: (m[0] ?? '').length } : undefined;
        },
        refused,
      );
    },
    needle: lit ? (fold ? lit.toLowerCase() : lit) : undefined,
    foldCase: fold,
    matchLine(line) {
      if (js && line.length <= MAX_JS_LINE) return jsHits(js, line);
      const max = Math.max(1, Math.min(MAX_HITS_PER_LINE, Math.floor(RE2_COPY_BUDGET / Math.max(1, line.length))));
      return withRe2(
        spec.source,
        spec.ignoreCase ? 'giu' : 'gu',
        (re) => {
          const hits: Hit[] = [];
          re.lastIndex = 0;
          for (let m = re.exec(line); m && hits.length < max; m = re.exec(line)) {
            const len = (m[0] ?? '').length;
            hits.push({ index: m.index, length: len });
            if (len === 0) re.lastIndex = m.index + 1; // an empty match must not loop forever
            if (re.lastIndex > line.length) break;
          }
          return hits;
        },
        () => (js ? jsHits(js, line) : refused()),
      );
    },
    dispose() {
      // RE2 objects belong to the process pool (pooledRe2), not to the pattern.
    },
  };
}

function makeRe2(source: string, flags: string): Re2Like | undefined {
  try {
    return new (loadRe2())(source, flags);
  } catch {
    return undefined;
  }
}

function tryJsRegex(source: string, ignoreCase: boolean, flags = 'g'): RegExp | undefined {
  try {
    return new RegExp(source, `${flags}${ignoreCase ? 'i' : ''}u`);
  } catch {
    return undefined; // RE2-only syntax: RE2 runs it
  }
}

function jsHits(re: RegExp, line: string): Hit[] {
  const hits: Hit[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(line); m && hits.length < MAX_HITS_PER_LINE; m = re.exec(line)) {
    hits.push({ index: m.index, length: m[0].length });
    if (m[0].length === 0) re.lastIndex = m.index + 1;
  }
  return hits;
}

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
}

export function analyzeRegex(src: string): RegexShape {
  const no: RegexShape = { shared: false, linearOnV8: false };
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
  const linearOnV8 = !alternation && !quantifiedGroup && (variable === 0 || (variable === 1 && src.startsWith('^')));
  return { shared: true, linearOnV8 };
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

/** `name(`, `a.b(`, `a::b(`, `a->b(`, `a?.b(`, `new Foo(`, `$fn(`, `panic!(`, `Math.random()`. */
const CALL_SHAPE = /^(?:new\s+)?[$A-Za-z_][\w$]*(?:\s*(?:\.|::|->|\?\.)\s*[$A-Za-z_][\w$]*)*!?\s*\(\)?$/;

/**
 * True when the pattern reads as a function call. A call written inside a string literal is not a call, so the
 * engine does not count such a pattern in strings unless the ADR chose a context (see engine.ts). A regex is
 * read through its common decorations (`\b`, `\s*`, escaped punctuation, a group of alternative names:
 * `/\bconsole\.(log|warn)\s*\(/`); anything else regex-like makes it text-shaped, which keeps the old default.
 */
export function isCallShaped(spec: PatternSpec): boolean {
  let s = spec.source.trim();
  if (spec.type === 'regex') {
    s = s
      .replace(/^\^/, '')
      .replace(/\\b/g, '')
      .replace(/(?<!\\)\((?:\?:)?[$\w]+(?:\|[$\w]+)*\)/g, 'x')
      .replace(/\\s[*+]?|\s[*+]/g, ' ')
      .replace(/\\([.()$:?!>-])/g, '$1')
      .trim();
    if (/[\\[\]|*+{}^]/.test(s) || /\?(?!\.)/.test(s)) return false;
  }
  return CALL_SHAPE.test(s);
}
