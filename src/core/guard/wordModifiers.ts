import { resolveLangNames } from './languages';
import { pathLike, readScopeValue, segments, splitOutsideCode, type ScopeUnit } from './scopeLines';
import { splitRemediation, windowFromWords } from './sentenceRequire';
import type { RequireWindow } from './types';

/**
 * Modifiers written in words, in a trailing parenthesis: `- deny: `eval(` (case-insensitive, warning)`.
 * Each word form maps to the `| modifier` it means; the caller applies them through the same code path.
 */

export interface WordMods {
  /** Canonical modifier texts for applyModifier (`case-insensitive`, `anywhere`, `lang: go`, `id: X` …). */
  mods: string[];
  regex?: boolean;
  severity?: 'warning' | 'error';
  window?: RequireWindow;
  include: ScopeUnit[];
  exclude: ScopeUnit[];
  unknown: string[];
  /** An unknown part that smells like a scope: the rule must not run with that scope ignored. */
  scopeish: boolean;
}

const WORDS: [RegExp, (w: WordMods) => void][] = [
  [/^(?:case[- ]?insensitive|ignor(?:e|es|ing)[- ]case|case ignored|any case|nocase|insensitive)$/, (w) => w.mods.push('case-insensitive')],
  [/^case[- ]?sensitive$/, (w) => w.mods.push('case-sensitive')],
  [/^(?:regex|regexp|re2|regular expression|as (?:a )?regexp?|(?:the )?pattern is a regexp?|is a regexp?)$/, (w) => (w.regex = true)],
  [/^(?:warning|warn|warn only|warning only|warnings only|advisory|advisory only|non[- ]?blocking|not blocking|soft|informational)$/, (w) => (w.severity = 'warning')],
  [/^(?:error|blocking|blocks|hard|strict)$/, (w) => (w.severity = 'error')],
  [/^(?:comments too|comments also|also comments|also in comments|in comments too|including comments|incl\.? comments|comments included|anywhere|even in comments|comments and strings too)$/, (w) => w.mods.push('anywhere')],
  [/^(?:not in strings|no strings|excluding strings|strings excluded|outside strings|ignore strings|ignoring strings|not strings|code only,? no strings)$/, (w) => w.mods.push('no-strings')],
  [/^(?:code only|code-only|not in comments|ignore comments|ignoring comments|strings too|including strings)$/, (w) => w.mods.push('code-only')],
];

const SCOPE_WORDS = /\b(in|under|within|inside|outside|only|except|not|exclud\w*|files?|folders?|director\w*|paths?|scope)\b/i;

/**
 * Looser wording of the same modifiers ("non-blocking warning", "matches any case", "comments as well"): each
 * concept found is applied; a part that also talks about places (in, under, files) is left to the scope reader.
 */
function fuzzy(low: string, w: WordMods): boolean {
  if (/[`/*]/.test(low) || /\b(in|under|within|outside|except|only|files?|folders?)\b/.test(low)) return false;
  let hit = false;
  if (/\b(warn(ing)?s?|advisory|non-?blocking|not blocking|informational)\b/.test(low)) (w.severity = 'warning'), (hit = true);
  if (/\bcase\b/.test(low) && /\b(insensitive|ignor\w*|any|less)\b/.test(low)) w.mods.push('case-insensitive'), (hit = true);
  if (/\bregexp?\b|\bregular[- ]expression\b/.test(low)) (w.regex = true), (hit = true);
  if (/\bcomments?\b/.test(low) && /\b(too|also|including|incl|even|included|as well)\b/.test(low)) w.mods.push('anywhere'), (hit = true);
  return hit;
}

/** Splits `a, b; c and d` at separators outside backticks. */
function parts(content: string): string[] {
  return splitOutsideCode(content, /\s*[,;]\s*|\s+and\s+(?=[a-z(])/i).map((p) => p.trim()).filter(Boolean);
}

export function readWordMods(content: string): WordMods {
  const w: WordMods = { mods: [], include: [], exclude: [], unknown: [], scopeish: false };
  for (const part of parts(content)) {
    const low = part.toLowerCase().replace(/\s+/g, ' ');
    const word = WORDS.find(([re]) => re.test(low));
    if (word) {
      word[1](w);
      continue;
    }
    if (/^[a-z][\w-]*\s*:/i.test(part)) {
      w.mods.push(part); // `id: X`, `in: src/**`, `because: …` inside the parenthesis
      continue;
    }
    const lang = /^([\w#+]+)(?: only| files| code)?$/i.exec(part);
    if (lang && resolveLangNames(lang[1])) {
      w.mods.push(`lang: ${lang[1]}`);
      continue;
    }
    const scope = /^(?:anywhere\s+|everywhere\s+|only\s+|files?\s+|code\s+)*(?:(in|under|within|inside|for)|(not\s+in|except(?:\s+in)?|excluding|outside(?:\s+of)?|never\s+in|but\s+not\s+in))\s+(.+)$/i.exec(part);
    const only = /^(.+?)\s+only$/i.exec(part);
    const scopeText = scope?.[3] ?? (only && segments(only[1]).every((s) => !s.code || pathLike(s.text, true)) ? only[1] : undefined);
    if (scopeText) {
      const read = readScopeValue(scopeText, scope?.[2] ? 'exclude' : 'include', false);
      if (!read.unclear && read.include.length + read.exclude.length) {
        w.include.push(...read.include);
        w.exclude.push(...read.exclude);
        continue;
      }
    }
    if (fuzzy(low, w)) continue;
    const win = windowFromWords(part);
    if (win.window && /^(?:on |in )?(?:the )?(?:same line|line|above|below|(?:\d+ )?lines? (?:above|below)|(?:directly |immediately )?(?:above|below|before|after)|in the (?:file|call|statement)|file|statement|call)/i.test(low)) {
      w.window = win.window;
      continue;
    }
    w.unknown.push(part);
    if (SCOPE_WORDS.test(part) || segments(part).some((s) => pathLike(s.text, s.code))) w.scopeish = true;
  }
  return w;
}

/**
 * Peels trailing `( … )` groups off a rule's text. With `onlyKnown` (bare patterns, where a parenthesis can
 * be part of the pattern) a group is peeled only when every word in it is understood.
 */
export function peelParens(text: string, onlyKnown: boolean): { text: string; groups: WordMods[] } {
  let s = text.trimEnd();
  const groups: WordMods[] = [];
  while (s.endsWith(')')) {
    let depth = 0;
    let i = s.length - 1;
    let inCode = false;
    for (; i >= 0; i--) {
      const c = s[i];
      if (c === '`') inCode = !inCode;
      if (inCode) continue;
      if (c === ')') depth++;
      else if (c === '(' && --depth === 0) break;
    }
    if (i < 0 || (i > 0 && !/\s/.test(s[i - 1]))) break;
    const mods = readWordMods(s.slice(i + 1, -1));
    if (onlyKnown && mods.unknown.length) break;
    groups.unshift(mods);
    s = s.slice(0, i).trimEnd();
  }
  return { text: s, groups };
}

/** Words after a rule's pattern: scope phrases and word modifiers, then "because …" / "— …" as remediation. */
export function readTrailingWords(words: string): { mods: WordMods; remediation?: string } {
  const { main, remediation } = splitRemediation(` ${words}`);
  const mods = main.trim() ? readWordMods(main.trim()) : { mods: [], include: [], exclude: [], unknown: [], scopeish: false };
  return { mods, remediation };
}
