import type { PatternSpec } from './types';

/**
 * Pattern matching for rules. Literals use indexOf. Regexes run on RE2 (re2-wasm), which is linear-time, so an
 * ADR author cannot hang a commit with `(a+)+$`. Crossing into WASM costs microseconds per call and converts the
 * whole input each time, so each regex gets a prefilter: a literal that every match must contain, found with
 * indexOf; RE2 then only sees the few lines that contain it.
 */

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

/** Error text when RE2 rejects the regex (syntax, or features like backreferences / lookaround it refuses). */
export function validateRegex(source: string, ignoreCase: boolean): string | undefined {
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
}

export function compilePattern(spec: PatternSpec): CompiledPattern {
  if (spec.type === 'literal') {
    const fold = spec.ignoreCase;
    const needle = fold ? spec.source.toLowerCase() : spec.source;
    return {
      spec,
      needle,
      foldCase: fold,
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
  return {
    spec,
    needle: lit ? (fold ? lit.toLowerCase() : lit) : undefined,
    foldCase: fold,
    matchLine(line) {
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
