import type { AdrSource } from './adrSource';
import { frontmatterScopes } from './ruleSection';
import { readScopeLine } from './scopeLines';
import { decisionSentences, type ProseSentence } from './proseSentences';
import { codeSpanPattern, escapeRegex, scopeGlob, verbSpanPattern, type SpanPattern } from './inferredPatterns';
import {
  UNDECIDED,
  RE_ACTIVE,
  RE_SUCH_AS,
  RE_NO,
  RE_PASSIVE,
  RE_INSTEAD,
  RE_PREFER,
  RE_REPLACE,
  RE_REPLACED,
  RE_AWAY,
  RE_FAVOUR,
  RE_ONLY,
  RE_ONLY_USE,
  NOT_NORMATIVE,
  NOT_NORMATIVE_START,
  WORD_SCOPE,
  SUBJECT_SCOPE,
  DECIDED_USE,
  MAX_SENTENCE,
  LEADING_PLACE,
  MAX_SENTENCES,
  MAX_RULES,
  STRONG_REQUIRE,
  THIRD_PERSON,
  CODE_SUBJECT,
  GENERIC_SUBJECT,
  CALL_VERB,
  NEW_VERB,
  CONDITION,
  RE_MEANS,
} from './inferredGrammar';
import type { AdrRules, GuardRule, InferredSetting, PatternSpec, RequireWindow } from './types';
import { ruleKey } from './ruleKey';

/**
 * Rules inferred from prose decisions (docs/guard.md, "Rules inferred from prose"). A sentence of an ADR's
 * decision text that forbids code named in backticks — "Do not import `lodash` in `packages/web`", "We will
 * avoid `React.FC`", "Use Luxon instead of `moment`", "`console.log` is allowed only in `scripts/`" — becomes an
 * advisory `deny` rule that carries the sentence and its line. Built for precision: a finding from a guessed
 * rule that the author did not mean costs more trust than a missed one, so anything unclear yields no rule —
 * sentences about the past, alternatives, consequences or hypotheticals, questions, scopes named in words
 * ("in the frontend") that no glob can stand for, requirements without a code trigger. The last two give a
 * `rule.ambiguous` diagnostic that shows how to write the rule explicitly.
 */


interface Span {
  text: string;
}

/** Appends the ADR's inferred rules (and ambiguity diagnostics) to `out`. Never throws. */
export function inferRules(note: AdrSource, out: AdrRules): void {
  const setting = adrSetting(note, out);
  if (setting === 'off') return;
  const first = (out.status ?? '').toLowerCase().match(/[a-z]+/)?.[0] ?? '';
  if (UNDECIDED.has(first) || (first === 'under' && /review|discussion/i.test(out.status ?? ''))) return;
  const explicitLines = new Set<number>([...out.rules.map((r) => r.line), ...out.diagnostics.map((d) => d.line)]);
  const sentences = [...decisionSentences(note)];
  const outer = outerScopes(note, sentences);
  if (outer.unclear) {
    out.diagnostics.push({ code: 'rule.ambiguous', message: `no rules inferred: the ADR declares a scope that cannot be read (${outer.unclear})`, adrPath: out.adrPath, line: outer.line, inferred: true });
    return;
  }
  let n = 0;
  const seen = new Set<string>();
  let read = 0;
  for (const s of sentences) {
    if (explicitLines.has(s.line) || outer.lines.has(s.line) || !s.text.includes('`')) continue;
    // An ADR states a handful of decisions; past this many sentences with code the text is not a decision list
    // (a generated or pasted document), and reading on would only cost the hook time.
    if (++read > MAX_SENTENCES || n >= MAX_RULES) {
      out.diagnostics.push({ code: 'rule.ambiguous', message: `inference stopped at line ${s.line}: over ${MAX_SENTENCES} decision sentences with code or ${MAX_RULES} inferred rules in one ADR; write its rules explicitly`, adrPath: out.adrPath, line: s.line, inferred: true });
      break;
    }
    if (s.inGuardSection && /^(?:[A-Za-z][\w-]*\s*:|applies\b|scope\b|only\s+in\b)/i.test(s.text)) continue;
    const result = inferSentence(s.text);
    if (!result) continue;
    if ('ambiguous' in result) {
      out.diagnostics.push({ code: 'rule.ambiguous', message: `inferred rule not created: ${result.ambiguous}`, adrPath: out.adrPath, line: s.line, inferred: true });
      continue;
    }
    for (const r of result.rules) {
      if (r.span && out.rules.some((e) => e.origin !== 'inferred' && mentions(e, r.span!))) continue;
      const key = ruleKey(r.pattern, r.include, r.exclude, r.when);
      if (seen.has(key) || out.rules.some((e) => e.origin !== 'inferred' && ruleKey(e.pattern, e.include, e.exclude, e.when) === key)) continue;
      seen.add(key);
      // The ADR's own scope (frontmatter `scope:` / `applies_to:`, an "Applies to:" line in its decision text)
      // holds for its prose rules too: the sentence's own scope narrows it, never widens it.
      const sets = r.include.length ? [r.include, ...outer.include] : outer.include;
      const rule: GuardRule = {
        id: `${out.adrId}#inferred-${++n}`,
        kind: r.kind ?? 'deny',
        pattern: r.pattern,
        ...(r.when ? { when: r.when, window: r.window ?? { kind: 'statement' } } : {}),
        include: sets[0] ?? [],
        ...(sets.length > 1 ? { within: sets.slice(1) } : {}),
        exclude: [...new Set([...r.exclude, ...outer.exclude])],
        langs: r.langs,
        context: r.context,
        text: `${r.describe} (inferred)`,
        adrId: out.adrId,
        adrPath: out.adrPath,
        adrTitle: out.title,
        line: s.line,
        origin: 'inferred',
        sentence: s.text.length > 400 ? `${s.text.slice(0, 397)}...` : s.text,
        ...(r.remediation ? { remediation: r.remediation } : {}),
        ...(setting ? { adrSetting: setting } : {}),
      };
      out.rules.push(rule);
    }
  }
}

interface OuterScopes {
  include: string[][];
  exclude: string[];
  /** Decision-text lines that are scope declarations, not decisions. */
  lines: Set<number>;
  unclear?: string;
  line: number;
}

function outerScopes(note: AdrSource, sentences: ProseSentence[]): OuterScopes {
  const res: OuterScopes = { include: [], exclude: [], lines: new Set(), line: 1 };
  const add = (include: { globs: string[] }[], exclude: { globs: string[] }[], unclear: string | undefined, line: number) => {
    if (unclear && !res.unclear) {
      res.unclear = unclear;
      res.line = line;
    }
    const inc = include.flatMap((u) => u.globs);
    if (inc.length) res.include.push(inc);
    res.exclude.push(...exclude.flatMap((u) => u.globs));
  };
  for (const d of frontmatterScopes(note.frontmatter)) add(d.include, d.exclude, d.unclear, 1);
  for (const s of sentences) {
    if (s.inGuardSection) continue; // the explicit parser reads scope lines of guard sections
    const read = readScopeLine(s.text);
    if (!read || read.awaitsList) continue;
    res.lines.add(s.line);
    add(read.include, read.exclude, read.unclear, s.line);
  }
  return res;
}

/** Does an explicit rule already name this span (`- deny: React.FC` beside "We will avoid `React.FC`")? */
function mentions(rule: GuardRule, span: string): boolean {
  const t = span.trim().replace(/\($/, '');
  return [rule.pattern, rule.when].some((p) => !!p && (p.source.includes(t) || p.source.includes(escapeRegex(t))));
}

// ruleKey lives in ruleKey.ts: the check-time policy needs it without loading the inference code.
export { ruleKey };

function adrSetting(note: AdrSource, out: AdrRules): InferredSetting | undefined {
  const fm = note.frontmatter;
  const v = fm['guard-inferred'] ?? fm.guard_inferred ?? fm.guardInferred;
  if (v === undefined || v === null || v === '') return undefined;
  if (v === false) return 'off';
  const s = String(v).trim().toLowerCase();
  if (s === 'off' || s === 'false' || s === 'no' || s === 'none') return 'off';
  if (s === 'warn' || s === 'warning' || s === 'advisory') return 'warn';
  if (s === 'block' || s === 'error' || s === 'deny' || s === 'blocking') return 'block';
  out.diagnostics.push({ code: 'rule.bad-setting', message: `guard-inferred: '${String(v)}' is not one of off, warn, block (using the vault setting)`, adrPath: out.adrPath, line: 1 });
  return undefined;
}

export interface InferredRuleDraft {
  kind?: 'deny' | 'require';
  /** The code span the rule forbids, as written. */
  span?: string;
  pattern: PatternSpec;
  when?: PatternSpec;
  window?: RequireWindow;
  include: string[];
  exclude: string[];
  langs: string[];
  context: GuardRule['context'];
  describe: string;
  remediation?: string;
}

/** One sentence → rules, an ambiguity (why no rule), or nothing. Exported for tests and `--explain-rules`. */
export function inferSentence(sentence: string): { rules: InferredRuleDraft[] } | { ambiguous: string } | undefined {
  // A decision is a sentence, not a page: longer runs (a list glued into one paragraph, a 10,000-line ADR
  // without full stops) are not read, which also bounds the cost of the grammar below.
  if (!sentence.includes('`') || sentence.length > MAX_SENTENCE) return undefined;
  const spans: Span[] = [];
  // Links keep their text; emphasis goes; code spans become §n§ so the grammar below can point at them.
  let masked = sentence.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
  masked = masked.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_m, _t, body: string) => {
    spans.push({ text: body.length > 2 && body.startsWith(' ') && body.endsWith(' ') ? body.slice(1, -1) : body });
    return `§${spans.length - 1}§`;
  });
  masked = masked.replace(/\*\*|__|(?<![\w§])[*_]|[*_](?![\w§])/g, '').replace(/\s+/g, ' ').trim();
  if (!spans.length) return undefined;
  if (/\?\s*$/.test(masked) || NOT_NORMATIVE_START.test(masked) || NOT_NORMATIVE.test(masked.replace(/§\d+§/g, 'X'))) return undefined;

  for (const clause of clauses(masked)) {
    const found = denyTargets(clause.text);
    if (!found) continue;
    const targets = spanIds(found.list);
    const whole = clause.text;
    // A scope in words, in the deny clause or its subject, cannot be turned into a glob.
    const scopeText = found.only ? '' : whole.replace(/§\d+§/g, ' X ');
    const subject = found.subject ?? '';
    // "In Reactor code paths we should avoid …": a leading place phrase is a scope in words too.
    if (!found.only && LEADING_PLACE.test(whole)) {
      const named = targets.map((i) => `\`${spans[i].text}\``).join(', ');
      return { ambiguous: `the sentence limits ${named} to a place named in words; write it as \`- deny: … | in: <glob>\` in the ADR's Rules section` };
    }
    const generic = GENERIC_SUBJECT.test(subject.trim());
    if (!found.only && (WORD_SCOPE.test(withoutPathSpans(whole, spans)) || (!generic && SUBJECT_SCOPE.test(subject.replace(/§\d+§/g, ''))))) {
      const named = targets.map((i) => `\`${spans[i].text}\``).join(', ');
      return { ambiguous: `the sentence limits ${named} to files named in words; write it as \`- deny: … | in: <glob>\` in the ADR's Rules section` };
    }
    void scopeText;
    const scope = scopeOf(whole, spans, new Set(targets), found.only);
    if (found.only && !scope.exclude.length) {
      return { ambiguous: `"allowed only in" needs the folder or files as a code span (\`scripts/\`); write it as \`- deny: … | except: <glob>\`` };
    }
    const drafts: InferredRuleDraft[] = [];
    for (const i of targets) {
      const p = (found.verb && verbSpanPattern(spans[i].text, found.verb)) || codeSpanPattern(spans[i].text, masked.replace(/§\d+§/g, ' '));
      if (!p) continue;
      // What the sentence says but no pattern can check is said in the rule's text, so no one reads more into it.
      const notes = [
        ...(generic ? [`"${subject.trim()}" is not checked: applies to all files`] : []),
        ...(found.condition ? [`the condition "${unmask(found.condition, spans)}" is not checked`] : []),
      ];
      const d = draftOf(p, scope, clause.remediation ?? found.remediation, spans);
      drafts.push({ ...d, describe: notes.length ? `${d.describe}; ${notes.join('; ')}` : d.describe, span: spans[i].text });
    }
    if (drafts.length) return { rules: drafts };
  }
  // A requirement: "Every `router.get(` handler must call `requireAuth(`".
  if (STRONG_REQUIRE.test(masked) && !/\b(?:not|never|no)\b/i.test(masked)) return inferRequire(masked, spans);
  return undefined;
}

const RE_TRIGGER = /\b(?:every|each|any|all|new|when(?:ever)?|before)\s+(?:(?:new|the|a|an|single)\s+)?§(\d+)§/i;

function inferRequire(masked: string, spans: Span[]): { rules: InferredRuleDraft[] } | { ambiguous: string } | undefined {
  const named = spans.map((s) => `\`${s.text}\``).join(', ');
  const trig = RE_TRIGGER.exec(masked);
  const others = spans.map((_s, i) => i).filter((i) => i !== Number(trig?.[1]) && !scopeGlob(spans[i].text));
  if (!trig || others.length !== 1) {
    // Only worth a diagnostic when the sentence is plainly about code to call or write (`requireAuth(`,
    // `// reason:`); "each node must have one `CleanStart` execution" is not a code rule at all.
    if (!spans.every((s) => /\($|^(?:\/\/|#|\/\*|--)/.test(s.text.trim()))) return undefined;
    return { ambiguous: `a requirement (${named}) without one code trigger and one required pattern; write it as \`- require: <what> | when: <trigger pattern> | in: <glob>\`` };
  }
  if (WORD_SCOPE.test(withoutPathSpans(masked, spans))) {
    return { ambiguous: `the requirement (${named}) is limited to files named in words; write it as \`- require: … | when: … | in: <glob>\`` };
  }
  const when = codeSpanPattern(spans[Number(trig[1])].text, 'call');
  const what = requiredPattern(spans[others[0]].text);
  if (!when || !what) return { ambiguous: `cannot read ${named} as code; write the rule explicitly` };
  const scope = scopeOf(masked, spans, new Set([Number(trig[1]), others[0]]));
  const window: RequireWindow = /\bline\s+(?:directly\s+|immediately\s+|right\s+)?above\b/i.test(masked)
    ? { kind: 'above', lines: 1 }
    : /\bsame\s+line\b/i.test(masked)
      ? { kind: 'line' }
      : /\b(?:in|anywhere\s+in)\s+the\s+(?:same\s+)?file\b/i.test(masked)
        ? { kind: 'file' }
        : { kind: 'statement' };
  return {
    rules: [{
      kind: 'require', pattern: what, when: when.pattern, window, include: scope.include, exclude: scope.exclude, langs: when.langs, context: 'code',
      describe: `require ${spans[others[0]].text} when ${spans[Number(trig[1])].text}`,
    }],
  };
}

/** What a require rule wants present: found in the window as text (a comment such as `// reason:` counts). */
function requiredPattern(span: string): PatternSpec | undefined {
  const t = span.trim();
  if (t.length < 2) return undefined;
  const call = /^([A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*)\s*\($/.exec(t);
  if (call) return { type: 'regex', source: `\\b${escapeRegex(call[1])}\\s*\\(`, ignoreCase: false };
  return { type: 'literal', source: t, ignoreCase: false };
}

function draftOf(p: SpanPattern, scope: { include: string[]; exclude: string[] }, remediation: string | undefined, spans: Span[]): InferredRuleDraft {
  return {
    pattern: p.pattern,
    include: scope.include,
    exclude: scope.exclude,
    langs: p.langs,
    context: p.context,
    describe: p.describe,
    ...(remediation ? { remediation: unmask(remediation, spans) } : {}),
  };
}

interface Found {
  list: string;
  subject?: string;
  only?: boolean;
  remediation?: string;
  /** How the clause uses the span ("call `constantize`", "instantiate `HttpClient`"). */
  verb?: 'call' | 'new';
  /** A condition after the span the guard cannot check ("on user input"). */
  condition?: string;
}

/** Which code spans the clause forbids, by the first grammar that reads it. */
function denyTargets(c: string): Found | undefined {
  let m = RE_ONLY.exec(c) ?? RE_ONLY_USE.exec(c);
  if (m) return { list: m[1], only: true };
  m = RE_PASSIVE.exec(c);
  if (m) return { list: m[1], subject: c.slice(0, m.index) };
  m = RE_ACTIVE.exec(c) ?? RE_SUCH_AS.exec(c) ?? RE_NO.exec(c);
  if (m) {
    const before = c.slice(0, m.index);
    // "This design avoids …", "The approach never uses …": third-person present describes; "New code avoids …" decides.
    if (THIRD_PERSON.test(m[0]) && !CODE_SUBJECT.test(before.trim())) return undefined;
    const rest = c.slice(m.index + m[0].length);
    const verb = NEW_VERB.test(m[0]) ? 'new' : CALL_VERB.test(m[0]) ? 'call' : undefined;
    // "Frontend code must not …": the subject is a scope in words. Imperatives ("Do not …") have none.
    return { list: m[1], subject: before, remediation: positiveTail(rest), verb, condition: CONDITION.exec(rest)?.[1] };
  }
  m = RE_MEANS.exec(c);
  if (m) return { list: m[1], subject: c.slice(0, m.index) };
  for (const re of [RE_INSTEAD, RE_PREFER, RE_REPLACE, RE_REPLACED, RE_AWAY, RE_FAVOUR]) {
    m = re.exec(c);
    if (!m) continue;
    // The positive half must be a decision ("use", "prefer", "replace …"), not a description.
    if ((re === RE_INSTEAD || re === RE_PREFER) && !DECIDED_USE.test(c)) continue;
    return { list: m[1], subject: re === RE_REPLACED ? c.slice(0, m.index) : undefined, remediation: c };
  }
  return undefined;
}

/** "…; use X", ", use X instead", " — prefer X": the remediation the sentence itself gives. */
function positiveTail(rest: string): string | undefined {
  const m = /^[^;:—–]*?(?:[;:—–]|,|\.|\s)\s*((?:instead[, ]+|rather[, ]+)?(?:use|prefer|call|import|rely on|go through|write)\b.*)$/i.exec(rest);
  if (!m) return undefined;
  const t = m[1].trim().replace(/[.;]+$/, '');
  return t ? t[0].toUpperCase() + t.slice(1) : undefined;
}

function clauses(masked: string): { text: string; remediation?: string }[] {
  // "Do not import X in Y; use Z" → the deny clause and its remedy. Other `;` parts are clauses of their own.
  const parts = masked.split(/\s*;\s*/);
  return parts.map((text, i) => {
    const next = parts[i + 1];
    const remediation = next && /^(?:instead[, ]+)?(?:use|prefer|call|import|rely on|go through|write)\b/i.test(next) ? next[0].toUpperCase() + next.slice(1).replace(/[.]+$/, '') : undefined;
    return { text, remediation };
  });
}

function spanIds(list: string): number[] {
  return [...list.matchAll(/§(\d+)§/g)].map((m) => Number(m[1]));
}

function unmask(text: string, spans: Span[]): string {
  return text.replace(/§(\d+)§/g, (_m, i: string) => `\`${spans[Number(i)].text}\``);
}

/** The clause with path-like spans turned into a neutral token, so `in `src/`` is not read as a word scope. */
function withoutPathSpans(clause: string, spans: Span[]): string {
  return clause
    .replace(/§(\d+)§/g, (_m, i: string) => (scopeGlob(spans[Number(i)].text) ? ' PATHSPAN ' : ' CODESPAN '))
    .replace(/\bfor\s+(?:example|instance)\b/gi, ' ');
}

/** Globs from path spans after in / under / within (include) or outside / except (exclude). */
function scopeOf(clause: string, spans: Span[], targets: Set<number>, only?: boolean): { include: string[]; exclude: string[] } {
  const include: string[] = [];
  const exclude: string[] = [];
  const re = /(\b(?:in|under|within|inside|to|outside(?:\s+of)?|except(?:\s+(?:in|for|under))?|excluding|other\s+than|apart\s+from|besides|but\s+not|and|or|,)\s+(?:(?:the|all|any|files?\s+(?:in|under)|folders?|director(?:y|ies)|files)\s+)*)?§(\d+)§/gi;
  let prevWasScope = false;
  let prevExclude = false;
  for (const m of clause.matchAll(re)) {
    const i = Number(m[2]);
    if (targets.has(i)) {
      prevWasScope = false;
      continue;
    }
    const glob = scopeGlob(spans[i].text);
    if (!glob) {
      prevWasScope = false;
      continue;
    }
    const word = (m[1] ?? '').trim().toLowerCase();
    const joiner = word === 'and' || word === 'or' || word === ',';
    let isExclude: boolean;
    if (joiner) {
      if (!prevWasScope) continue;
      isExclude = prevExclude;
    } else if (!word) continue;
    else isExclude = /^(?:outside|except|excluding|other|apart|besides|but)/.test(word);
    if (only) isExclude = true;
    (isExclude ? exclude : include).push(glob);
    prevWasScope = true;
    prevExclude = isExclude;
  }
  return { include, exclude };
}
