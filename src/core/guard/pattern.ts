import { K0Error } from '../errors';
import { freeRe2, loadRe2, withRe2 } from './re2Pool';
import { analyzeRegex, pinnedPrefix, requiredLiteral } from './regexShape';
import type { PatternSpec } from './types';

// Callers and tests reach the engine's parts through this module.
export { RE2_POOL, re2PoolSize } from './re2Pool';
export { analyzeRegex, pinnedPrefix, requiredLiteral } from './regexShape';

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
 *    regex width as factor);
 *  - a regex that starts with a literal and is linear from one start position (`\bsetTimeout\(\s*"`; see
 *    pinnedPrefix) runs on V8 for a line where that literal occurs once — one start position, as for `^…` — and
 *    on RE2 for a line that repeats it. The usual commit then never loads RE2 at all.
 */
const MAX_JS_LINE = 2000;
/** One rule reports at most this many matches in one line (a 1 MB minified line is still one line to fix). */
export const MAX_HITS_PER_LINE = 20;
/** Characters RE2 may copy while collecting one line's matches (each call copies the whole line). */
const RE2_COPY_BUDGET = 256 * 1024;

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
  // Case-sensitive only: indexOf must find exactly the positions where V8 could start a match.
  const pin = !js && !fold ? pinnedPrefix(spec.source) : undefined;
  const jsPinned = pin ? tryJsRegex(spec.source, false) : undefined;
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
      if (jsPinned && line.length <= MAX_JS_LINE) {
        const starts = startPositions(line, pin!);
        if (starts === 0) return []; // every match starts with the literal
        if (starts === 1) return jsHits(jsPinned, line);
      }
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


/** At how many positions `lit` occurs in `line` (overlapping ones count): 0, 1, or 2 for "more than one". */
function startPositions(line: string, lit: string): 0 | 1 | 2 {
  const at = line.indexOf(lit);
  if (at < 0) return 0;
  return line.indexOf(lit, at + 1) < 0 ? 1 : 2;
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
