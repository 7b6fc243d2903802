import { normalizeGlob, pathLike, pathLikeBare, segments, type ScopeUnit } from './scopeLines';
import type { PatternSpec, RequireWindow } from './types';

/**
 * `- require: every `subprocess.run(` call passes `check=True`` → require `check=True` when `subprocess.run(`,
 * window statement. The code span after a trigger word (every, each, new, any, when, before …) is the trigger,
 * the other span is what must be present, position words choose the window. Anything the reader cannot settle
 * (no trigger word, one code span, two windows, a negation) is an error for a `rule.ambiguous` diagnostic: a
 * require rule blocks commits, so a guess is never made.
 */

export interface SentenceRule {
  trigger: PatternSpec;
  triggerText: string;
  companion: PatternSpec;
  companionText: string;
  window: RequireWindow;
}

export interface SentenceResult {
  rules: SentenceRule[];
  include: ScopeUnit[];
  exclude: ScopeUnit[];
  remediation?: string;
  error?: string;
}

const TRIGGER_WORD = /\b(every|each|new|any|all|when|whenever|wherever|before|after|per|containing)\b/;
const JOIN = /^\s*(,\s*(and|or|and\/or)?|and|or|and\/or|\/)\s*$/i;
const NEGATION = /\b(no|not|never|without|don't|mustn't|cannot|can't|forbid\w*|avoid\w*|disallow\w*)\b/i;
const SCOPE_BEFORE = /(?:^|\s)(only\s+in|only\s+under|in|under|within|inside|outside(?:\s+of)?|except\s+in|except|not\s+in|excluding)\s+(?:(?:the|any|all|files?|code|folders?|director(?:y|ies)|of)\s+)*$/i;
const REMEDIATION = /(\s+(?:because|since|so\s+that)\s+|\s+[—–]\s+|\s+-\s+|;\s+)/i;

/** Position words → the require window; a conflict (two different windows) is reported, not resolved. */
export function windowFromWords(text: string): { window?: RequireWindow; conflict?: string } {
  let w = ` ${text.toLowerCase().replace(/\s+/g, ' ')} `;
  const found: { win: RequireWindow; what: string; bare?: boolean }[] = [];
  const take = (re: RegExp, win: (m: RegExpExecArray) => RequireWindow, bare?: boolean) => {
    const m = re.exec(w);
    if (!m) return false;
    found.push({ win: win(m), what: m[0].trim(), bare });
    w = w.replace(re, ' ');
    return true;
  };
  const n = (m: RegExpExecArray) => Math.min(200, Number(m[1]));
  // "followed by `x` within 5 lines" / "preceded by `x` within 2 lines"
  let placed = false;
  if (take(/\b(?:followed by|after|below)\b.*?\bwithin (\d{1,3}) lines?\b/, (m) => ({ kind: 'below', lines: n(m) }))) (placed = true), (w = w.replace(/\b(?:below|after|following|followed by)\b/g, ' '));
  if (take(/\b(?:preceded by|before|above)\b.*?\bwithin (\d{1,3}) lines?\b/, (m) => ({ kind: 'above', lines: n(m) }))) (placed = true), (w = w.replace(/\b(?:above|before|preceding|precedes|preceded by)\b/g, ' '));
  if (!placed && !take(/\b(?:within|in) (?:the )?(\d{1,3}) lines? (?:above|before|preceding)\b|\b(\d{1,3}) lines? (?:above|before)\b/, (m) => ({ kind: 'above', lines: Math.min(200, Number(m[1] ?? m[2])) }))) {
    if (!take(/\b(?:(?:directly|immediately|right|just) (?:above|before|preceding)|(?:the )?(?:previous|preceding|prior) line|line (?:directly |immediately |right |just )?(?:above|before))\b/, () => ({ kind: 'above', lines: 1 }))) {
      take(/\b(?:above|before|preceding|precedes|preceded by)\b/, () => ({ kind: 'above', lines: 3 }), true);
    }
  }
  if (!placed && !take(/\b(?:within|in) (?:the )?(\d{1,3}) lines? (?:below|after|following)\b/, (m) => ({ kind: 'below', lines: n(m) }))) {
    if (!take(/\b(?:(?:directly|immediately|right|just) (?:below|after|following)|(?:the )?(?:next|following) line|line (?:directly |immediately |right |just )?(?:below|after))\b/, () => ({ kind: 'below', lines: 1 }))) {
      take(/\b(?:below|after|following|followed by)\b/, () => ({ kind: 'below', lines: 3 }), true);
    }
  }
  take(/\b(?:same line|(?:on|in) (?:that|the|its|this|each|every) line|on one line)\b/, () => ({ kind: 'line' }));
  take(/\b(?:(?:anywhere |somewhere |elsewhere )?(?:in|within) (?:the|that|this|its|each|every|a) (?:same )?file|file[- ]wide|per file|files? (?:that )?(?:contain|containing|with|uses?|using)|at the top of (?:the|every|each|any) file|also contains?)\b/, () => ({ kind: 'file' }));
  // "`mu.Lock()` in the file before any `shared[`": a bare before / after next to an explicit position orders the
  // trigger (it is the trigger word); the explicit position is the window. Two explicit positions still conflict.
  if (found.length > 1 && found.some((f) => !f.bare)) found.splice(0, found.length, ...found.filter((f) => !f.bare));
  if (found.length > 1) return { conflict: `two positions (${found.map((f) => `'${f.what}'`).join(' and ')})` };
  if (found.length === 1) return { window: found[0].win };
  if (/\b(?:pass(?:es|ed|ing)?|with|in the (?:same )?(?:call|statement|expression|invocation)|arguments?|called with|sets?|includes?|has|have|specif(?:y|ies)|uses?|contains?)\b/.test(w)) {
    return { window: { kind: 'statement' } };
  }
  return {};
}

function escapeRe(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

export function splitRemediation(text: string): { main: string; remediation?: string } {
  for (const seg of segments(text)) {
    if (seg.code) continue;
    const m = REMEDIATION.exec(seg.text);
    if (!m || m.index === undefined) continue;
    const cut = seg.start + m.index;
    const rem = text.slice(cut + m[0].length).trim();
    return rem ? { main: text.slice(0, cut), remediation: rem.replace(/\.$/, '') } : { main: text.slice(0, cut) };
  }
  return { main: text };
}

export function readRequireSentence(text: string): SentenceResult {
  const out: SentenceResult = { rules: [], include: [], exclude: [] };
  const { main, remediation } = splitRemediation(text.trim());
  if (remediation) out.remediation = remediation;
  const segs = segments(main);
  // Items in order: prose gaps and code spans; scope phrases ("in `web/`", "under web/components/") are taken out.
  interface Span { text: string; before: string; after: string; role?: 'trigger' | 'companion'; lineWindow?: boolean; joiner?: string }
  const spans: Span[] = [];
  let gap = '';
  const prose: string[] = [];
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (!s.code) {
      const { rest } = bareScopes(s.text, out);
      gap += rest;
      prose.push(rest);
      continue;
    }
    const sc = SCOPE_BEFORE.exec(gap);
    if (sc && pathLike(s.text, true) && !/^\s*lines?\b/i.test(segs[i + 1]?.text ?? '')) {
      const unit = { written: s.text, globs: normalizeGlob(s.text) };
      (/^(outside|except|not|excluding)/i.test(sc[1]) ? out.exclude : out.include).push(unit);
      gap = gap.slice(0, sc.index);
      prose[prose.length - 1] = gap;
      continue;
    }
    if (spans.length) spans[spans.length - 1].after = gap;
    spans.push({ text: s.text, before: gap, after: '' });
    gap = '';
  }
  if (spans.length) spans[spans.length - 1].after = gap;
  const words = prose.join(' ');
  if (NEGATION.test(words)) return { ...out, error: 'it reads as a prohibition (no / not / never / without): write a deny rule instead' };
  if (spans.length === 0) return { ...out, error: 'it names no code in backticks' };
  if (spans.length === 1) return { ...out, error: `it names one code span only (\`${spans[0].text}\`): say which code is required and which code triggers it` };

  let lineWindow = false;
  spans.forEach((sp, i) => {
    const lastWords = sp.before.toLowerCase().trim().split(/\s+/).slice(-4).join(' ');
    if (i > 0 && JOIN.test(sp.before)) {
      sp.role = spans[i - 1].role;
      sp.joiner = /or/i.test(sp.before) ? 'or' : 'and';
      return;
    }
    if (/^\s*lines?\b/i.test(sp.after) && /\b(in|on)\s+(?:the\s+|every\s+|each\s+|all\s+)?$/i.test(sp.before)) {
      sp.role = 'trigger';
      lineWindow = true;
      return;
    }
    sp.role = TRIGGER_WORD.test(lastWords) ? 'trigger' : 'companion';
  });
  const triggers = spans.filter((s) => s.role === 'trigger');
  const companions = spans.filter((s) => s.role === 'companion');
  if (!triggers.length) return { ...out, error: 'no code span follows a trigger word (every, each, new, any, when, before, after)' };
  if (!companions.length) return { ...out, error: 'every code span reads as a trigger; nothing is required' };
  const companionGroups = companions.filter((c) => !c.joiner).length;
  if (companionGroups > 1) return { ...out, error: `two separate required parts (${companions.map((c) => `\`${c.text}\``).join(', ')})` };
  const joiners = new Set(companions.slice(1).map((c) => c.joiner));
  if (joiners.size > 1) return { ...out, error: 'required parts joined by both "and" and "or"' };

  const win = windowFromWords(words);
  if (win.conflict) return { ...out, error: win.conflict };
  let window = win.window;
  if (lineWindow) {
    if (window && window.kind !== 'line') return { ...out, error: `'in \`${triggers[0].text}\` lines' and another position` };
    window = { kind: 'line' };
  }
  if (!window) {
    // "every `x(` … `y`" without a position word: a call's own statement is the only sensible window.
    // "on every `target=\"_blank\"` link": the trigger's own construct.
    if (triggers.every((t) => /[({]\s*$/.test(t.text)) || /\bon (?:every|each|any|all)\b/i.test(words)) window = { kind: 'statement' };
    else return { ...out, error: 'no position word (on the same line, on the line directly above, in the call, in the file)' };
  }
  const companionSpecs: { spec: PatternSpec; text: string }[] =
    companions.length > 1 && joiners.has('or')
      ? [{ spec: { type: 'regex', source: companions.map((c) => escapeRe(c.text)).join('|'), ignoreCase: false }, text: companions.map((c) => c.text).join(' or ') }]
      : companions.map((c) => ({ spec: { type: 'literal', source: c.text, ignoreCase: false }, text: c.text }));
  for (const t of triggers) {
    for (const c of companionSpecs) {
      out.rules.push({ trigger: { type: 'literal', source: t.text, ignoreCase: false }, triggerText: t.text, companion: c.spec, companionText: c.text, window });
    }
  }
  return out;
}

/** "under web/components/" in prose: a bare path after a scope preposition. */
function bareScopes(text: string, out: SentenceResult): { rest: string } {
  const re = /\b(only\s+in|only\s+under|in|under|within|inside|outside(?:\s+of)?|except\s+in|not\s+in|excluding)\s+((?:(?:the|any|all|files?|code|folders?)\s+)*)(\S+)/gi;
  const rest = text.replace(re, (all, prep: string, _f: string, tok: string) => {
    const t = tok.replace(/[.,;:)]+$/, '');
    if (!pathLikeBare(t) || !(t.includes('/') || t.includes('*'))) return all;
    (/^(outside|except|not|excluding)/i.test(prep) ? out.exclude : out.include).push({ written: t, globs: normalizeGlob(t) });
    return ' ';
  });
  return { rest };
}

/** The explicit form of a sentence, for the diagnostic that asks to write it that way. */
export function explicitHint(text: string): string {
  const spans = segments(text).filter((s) => s.code).map((s) => s.text);
  const req = spans[0] ?? '<required>';
  const when = spans[1] ?? '<trigger>';
  return `- require: \`${req}\` | when: \`${when}\` | window: statement|line|above 1|file`;
}
