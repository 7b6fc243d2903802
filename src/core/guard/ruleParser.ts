import type { ParsedNote } from '../vault/markdown';
import { scanAdr, sourceFromNote, type AdrSource } from './adrSource';
import { resolveLangNames } from './languages';
import { frontmatterScopes, headingScope, linesAbove, walkSection, type PendingRule, type ScopeDecl } from './ruleSection';
import { linesPerList, nestScopes, origins, sectionLevels, unreadable, type ScopeCtx } from './ruleScopes';
import { readScopeLine, readScopeValue, segments, type ScopeUnit } from './scopeLines';
import { explicitHint, readRequireSentence } from './sentenceRequire';
import { peelParens, readTrailingWords, type WordMods } from './wordModifiers';
import { inferRules } from './inferred';
import type { AdrRules, GuardDiagnostic, GuardRule, MatchContext, PatternSpec, RequireWindow, RuleKind } from './types';

/**
 * Reads the rule language out of an ADR (grammar and examples: docs/guard.md). Rules live as list items in a
 * section headed Invariants / Rules / Guard; fenced code blocks inside it are examples and never rules. Rule text
 * is read from the raw Markdown lines (the rendered inline text has escapes such as `\(` removed, which would
 * change a regex). Nothing here throws on bad input: a malformed rule becomes a diagnostic at its ADR line.
 */

// English, plus the same headings in German, French, Spanish/Portuguese and Japanese.
const SECTION = /^(invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?|regeln|invarianten|règles|reglas|regras|ルール|規則)(?![A-Za-z0-9_])/i;
/** Cheap test on the raw file so notes without a guard section are never parsed by the guard. */
export const GUARD_SECTION_RE = /^#{1,6}[ \t]+(invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?|regeln|invarianten|règles|reglas|regras|ルール|規則)(?![A-Za-z0-9_])/im;
const KEYED = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/;
const INACTIVE = new Set(['superseded', 'deprecated', 'rejected', 'obsolete', 'withdrawn', 'retired', 'abandoned', 'replaced']);

export type RegexValidator = (source: string, ignoreCase: boolean) => string | undefined;

export function parseAdrRules(raw: string, relPath: string, validateRegex?: RegexValidator): AdrRules {
  return rulesFromSource(scanAdr(raw, relPath), relPath, validateRegex);
}

/** For callers that already hold a ParsedNote (the index, the editor). */
export function rulesFromNote(note: ParsedNote, relPath: string, validateRegex?: RegexValidator): AdrRules {
  return rulesFromSource(sourceFromNote(note), relPath, validateRegex);
}

export function adrIdOf(note: Pick<AdrSource, 'frontmatter'>, relPath: string): string {
  const fm = note.frontmatter.id ?? note.frontmatter.adr;
  if (typeof fm === 'string' || typeof fm === 'number') return String(fm).trim();
  return relPath.slice(relPath.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

/** Superseded, deprecated and rejected decisions (frontmatter, `## Status` section or `Status:` line) stop applying. */
export function isActiveStatus(status: string | undefined, note?: Pick<AdrSource, 'frontmatter'>): boolean {
  if (note && (note.frontmatter.superseded_by || note.frontmatter.supersededBy)) return false;
  if (!status) return true;
  const first = status.toLowerCase().match(/[a-z]+/)?.[0] ?? ''; // the inactive words are ASCII
  return !INACTIVE.has(first);
}

export function rulesFromSource(note: AdrSource, relPath: string, validateRegex?: RegexValidator): AdrRules {
  const adrId = adrIdOf(note, relPath);
  const status = note.status;
  const project = typeof note.frontmatter.project === 'string' ? note.frontmatter.project : undefined;
  const out: AdrRules = { adrId, adrPath: relPath, title: note.title, status, project, active: isActiveStatus(status, note), rules: [], diagnostics: [] };
  const lastFileLine = note.bodyStartLine + note.lines.length - 1;
  const counter = { n: 0 };
  // A rules heading nested in a rules section is part of it (parsed once); the scan stays linear in headings.
  let coveredUntil = 0;
  const adrScopes = frontmatterScopes(note.frontmatter);
  note.headings.forEach((h, hi) => {
    if (h.line <= coveredUntil || !SECTION.test(h.text.trim())) return;
    let end = lastFileLine;
    for (let j = hi + 1; j < note.headings.length; j++) {
      if (note.headings[j].level <= h.level) {
        end = note.headings[j].line - 1;
        break;
      }
    }
    coveredUntil = end;
    parseSection(note, h.line + 1, end, out, counter, [headingScope(h.text, h.line), linesAbove(note, h.line), adrScopes], validateRegex);
  });
  inferRules(note, out); // prose decisions → advisory rules (inferred.ts); after the explicit ones, which win
  return out;
}

function parseSection(note: AdrSource, from: number, to: number, out: AdrRules, counter: { n: number }, outer: ScopeDecl[][], validate?: RegexValidator): void {
  const blocks = walkSection(note, from, to, counter, (code, message, line) => diag(out, code, message, line));
  const reported = new Set<ScopeDecl>();
  const conflicts = new Set<ScopeDecl>();
  const report = (d: ScopeDecl) => {
    if (!d.unclear || reported.has(d)) return;
    reported.add(d);
    const tail = unreadable(d)
      ? ' — the rules it governs are not checked until it is written as paths or globs, e.g. `Applies to: `services/**/*.ts``'
      : ` — checked with what was read (${[...d.include, ...d.exclude].map((u) => u.written).join(', ')})`;
    diag(out, 'rule.scope-unclear', d.unclear + tail, d.line);
  };
  const topLines = blocks[0].lines;
  const topDecls = topLines.map((l) => l.decl);
  blocks.forEach((b, bi) => {
    const inc = linesPerList(b.lines, b.lists.length, 'include');
    const exc = linesPerList(b.lines, b.lists.length, 'exclude');
    b.lists.forEach((list, li) => {
      const levels: ScopeDecl[][] = [list.scopes, ...sectionLevels(inc[li], exc[li], out, conflicts), bi > 0 ? topDecls : [], ...outer];
      const excl: ScopeDecl[] = [...list.scopes, ...exc[li], ...(bi > 0 ? topDecls : []), ...outer.flat()];
      const all = [...levels.flat(), ...excl];
      for (const d of all) report(d);
      const ctx: ScopeCtx = {
        includeSets: levels.map((ds) => origins(ds, 'include')).filter((o) => o.length),
        exclude: origins([...new Set(excl)], 'exclude'),
        disabled: all.some(unreadable),
      };
      for (const p of list.rules) compileRule(p, out, ctx, validate);
    });
  });
}

function diag(out: AdrRules, code: GuardDiagnostic['code'], message: string, line: number): void {
  out.diagnostics.push({ code, message, adrPath: out.adrPath, line });
}

/** Splits `pattern | mod | mod` — the pattern is taken first so a `|` inside backticks or a /regex/ is kept. */
export function readPattern(text: string): { spec?: PatternSpec; written: string; rest: string; error?: string } {
  const s = text.trimStart();
  if (s.startsWith('`')) {
    const ticks = /^`+/.exec(s)![0];
    const close = s.indexOf(ticks, ticks.length);
    if (close < 0) return { written: s, rest: '', error: 'unterminated `code span` pattern' };
    let lit = s.slice(ticks.length, close);
    if (lit.length > 2 && lit.startsWith(' ') && lit.endsWith(' ')) lit = lit.slice(1, -1);
    return { spec: { type: 'literal', source: lit, ignoreCase: false }, written: lit, rest: s.slice(close + ticks.length) };
  }
  if (s.startsWith('/')) {
    let i = 1;
    let inClass = false;
    for (; i < s.length; i++) {
      const c = s[i];
      if (c === '\\') { i++; continue; }
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
    }
    if (i >= s.length) return { written: s, rest: '', error: 'unterminated /regex/ (write a literal that starts with / in backticks)' };
    const flags = /^[a-z]*/.exec(s.slice(i + 1))![0];
    const bad = flags.replace(/[ismu]/g, '');
    if (bad) return { written: s.slice(0, i + 1 + flags.length), rest: '', error: `unsupported regex flag(s) '${bad}' (allowed: i, s, m, u)` };
    return {
      spec: { type: 'regex', source: s.slice(1, i), ignoreCase: flags.includes('i') },
      written: s.slice(0, i + 1 + flags.length),
      rest: s.slice(i + 1 + flags.length),
    };
  }
  const bar = s.indexOf(' | ');
  const lit = (bar < 0 ? s : s.slice(0, bar)).trim();
  return { spec: lit ? { type: 'literal', source: lit, ignoreCase: false } : undefined, written: lit, rest: bar < 0 ? '' : s.slice(bar) };
}

/** Splits at the first ` | ` outside code spans: the words of a rule and its `| modifiers`. */
function splitAtPipe(text: string): [string, string] {
  for (const seg of segments(text)) {
    if (seg.code) continue;
    const i = seg.text.indexOf(' | ');
    if (i >= 0) return [text.slice(0, seg.start + i), text.slice(seg.start + i + 1)];
  }
  return [text, ''];
}

interface Draft {
  kind: RuleKind;
  pattern: PatternSpec;
  written: string;
  when?: PatternSpec;
  whenWritten?: string;
  window?: RequireWindow;
}

function compileRule(p: PendingRule, out: AdrRules, ctx: ScopeCtx, validate?: RegexValidator): void {
  if (ctx.disabled) return; // reported once at the scope line that could not be read
  // Word modifiers at the very end (`- deny: x | in: src/** (warning)`); only groups that read fully.
  const whole = peelParens(p.rest, true);
  const groups: WordMods[] = [...whole.groups];
  const head = readPattern(whole.text);
  if (head.error) return diag(out, head.error.startsWith('unterminated') ? 'rule.unterminated' : 'rule.bad-regex', head.error, p.line);
  if (!head.spec || head.spec.source === '') return diag(out, 'rule.empty-pattern', `'${p.kind}:' needs a pattern`, p.line);
  let spec = head.spec;
  let written = head.written;
  const startsBare = !/^[`/]/.test(whole.text.trimStart());
  if (startsBare) {
    const pw = peelParens(written, true); // `- deny: SELECT * FROM (case-insensitive)`
    if (pw.groups.length) {
      written = pw.text;
      spec = { ...spec, source: pw.text };
      groups.unshift(...pw.groups);
    }
  }
  let rest = head.rest.trim();
  let words = '';
  if (rest && !rest.startsWith('|')) [words, rest] = splitAtPipe(head.rest).map((x) => x.trim()) as [string, string];
  if (words) {
    const pw = peelParens(words, false);
    words = pw.text.trim();
    groups.unshift(...pw.groups);
  }
  const pipeMods = rest ? rest.slice(1).split(' | ').map((t) => ({ text: t.trim(), line: p.line })).filter((m) => m.text) : [];
  const mods = [...pipeMods, ...p.modifiers.map((m) => ({ text: m.text, line: m.line }))];
  const hasWhen = mods.some((m) => /^(when|trigger)\s*:/i.test(m.text));
  for (const g of groups) {
    if (!g.unknown.length) continue;
    if (g.scopeish) return diag(out, 'rule.ambiguous', `'(${g.unknown.join(', ')})' reads like a scope but is not understood; the rule is not checked until it is written as \`| in: <glob>\` or \`| except: <glob>\``, p.line);
    diag(out, 'rule.bad-modifier', `word modifier(s) not understood, ignored: ${g.unknown.map((u) => `'${u}'`).join(', ')}`, p.line);
  }

  const drafts: Draft[] = [];
  let remediation: string | undefined;
  const ruleScopes: { include: ScopeUnit[]; exclude: ScopeUnit[] } = { include: [], exclude: [] };
  const sentenceText = (startsBare ? written : splitAtPipe(peelParens(whole.text, false).text)[0]).trim();
  const isSentence = p.kind === 'require' && !hasWhen && (words !== '' || (startsBare && (segments(written).some((x) => x.code) || /\s/.test(written.trim()))));
  if (isSentence) {
    const sr = readRequireSentence(startsBare ? written : `${sentenceText}`);
    if (sr.error) {
      return diag(out, 'rule.ambiguous', `cannot read the requirement '${sentenceText}': ${sr.error}. Write it explicitly: ${explicitHint(sentenceText)}`, p.line);
    }
    remediation = sr.remediation;
    ruleScopes.include.push(...sr.include);
    ruleScopes.exclude.push(...sr.exclude);
    for (const r of sr.rules) drafts.push({ kind: 'require', pattern: r.companion, written: r.companionText, when: r.trigger, whenWritten: r.triggerText, window: r.window });
  } else {
    if (words) {
      // `- deny: `console.log(` in `web/components`` / `… outside `scripts/`` / `… because …`
      const tw = readTrailingWords(words);
      if (tw.mods.unknown.length) {
        const text = tw.mods.unknown.join(' ');
        if (tw.mods.scopeish) return diag(out, 'rule.ambiguous', `'${text}' after the pattern reads like a scope but is not understood; write it as \`| in: <glob>\` or \`| except: <glob>\``, p.line);
        return diag(out, 'rule.bad-modifier', `unexpected text after the pattern: '${text}' (separate modifiers with ' | ')`, p.line);
      }
      groups.push(tw.mods);
      remediation = tw.remediation;
    }
    drafts.push({ kind: p.kind, pattern: spec, written });
  }

  drafts.forEach((d, k) => {
    const rule: GuardRule = {
      id: drafts.length > 1 ? `${out.adrId}#${p.ordinal}.${k + 1}` : `${out.adrId}#${p.ordinal}`,
      kind: d.kind,
      pattern: d.pattern,
      include: [],
      exclude: [],
      langs: [],
      context: 'code',
      text: d.when ? `${d.kind}: ${d.written} when ${d.whenWritten}` : `${d.kind}: ${d.written}`,
      adrId: out.adrId,
      adrPath: out.adrPath,
      adrTitle: out.title,
      line: p.line,
    };
    if (d.when) rule.when = d.when;
    if (d.window) rule.window = d.window;
    if (remediation) rule.remediation = remediation;
    let ignoreCase = false;
    const setCase = (v: boolean) => (ignoreCase = v);
    for (const g of groups) {
      for (const m of g.mods) applyModifier(rule, m, p.line, out, setCase);
      if (g.regex && rule.pattern.type === 'literal') rule.pattern = { ...rule.pattern, type: 'regex' };
      if (g.severity === 'warning') {
        if (rule.kind === 'deny') rule.kind = 'warn';
        else if (rule.kind === 'require') rule.severity = 'warning';
      } else if (g.severity === 'error') {
        if (rule.kind === 'warn') rule.kind = 'deny';
        else rule.severity = 'error';
      }
      if (g.window) rule.window = g.window;
      for (const u of g.include) addScope(rule, 'include', u, p.line);
      for (const u of g.exclude) addScope(rule, 'exclude', u, p.line);
    }
    for (const u of ruleScopes.include) addScope(rule, 'include', u, p.line);
    for (const u of ruleScopes.exclude) addScope(rule, 'exclude', u, p.line);
    for (const m of mods) applyModifier(rule, m.text, m.line, out, setCase);
    if (unscoped.has(rule)) return; // a scope modifier that could not be read: reported, not checked
    if (ignoreCase) {
      rule.pattern = { ...rule.pattern, ignoreCase: true };
      if (rule.when) rule.when = { ...rule.when, ignoreCase: true };
    }
    if (rule.kind === 'require') {
      if (!rule.when) return diag(out, 'rule.missing-when', "'require:' needs a trigger: add '| when: <pattern>', or write one sentence such as 'every `x(` call passes `y`'", p.line);
      rule.window ??= { kind: 'statement' };
    }
    for (const sp of [rule.pattern, rule.when]) {
      if (sp?.type !== 'regex' || !validate) continue;
      const err = validate(sp.source, sp.ignoreCase);
      if (err) return diag(out, 'rule.bad-regex', `invalid regex /${sp.source}/: ${err}`, p.line);
    }
    if (drafts.length > 1 && k > 0 && rule.id === out.rules[out.rules.length - 1]?.id) rule.id = `${rule.id}.${k + 1}`;
    if (rule.kind === 'require' && rule.when && !rule.contextExplicit && rule.context === 'code' && COMMENT_TRIGGER.test(rule.when.source.trim())) {
      rule.context = 'anywhere';
    }
    nestScopes(rule, ctx, out);
    out.rules.push(rule);
  });
}

/** Rules whose own scope modifier could not be read; they are dropped, never run unscoped. */
const unscoped = new WeakSet<GuardRule>();

function addScope(rule: GuardRule, polarity: 'include' | 'exclude', u: ScopeUnit, line: number): void {
  (polarity === 'include' ? rule.include : rule.exclude).push(...u.globs);
  (rule.scopes ??= []).push({ level: 'rule', polarity, written: u.written, globs: u.globs, line });
}

/** Triggers that only ever sit in comments (lint suppressions, type-checker pragmas) are matched there too. */
const COMMENT_TRIGGER = /^(?:\/\/|\/\*|#|--|<!--)|^(?:eslint-disable|eslint-enable|@ts-ignore|@ts-expect-error|@ts-nocheck|noqa|nolint|NOSONAR|istanbul ignore|c8 ignore|prettier-ignore|type:\s*ignore|pylint:\s*disable|rubocop:\s*disable|nosec|TODO|FIXME|XXX|HACK)/;

const FLAGS: Record<string, (r: GuardRule, setCase: (v: boolean) => void) => void> = {
  // A context the ADR names wins over the engine's default for call-shaped patterns (engine.ts effectiveContext).
  anywhere: (r) => ((r.context = 'anywhere'), (r.contextExplicit = true)),
  'code-only': (r) => ((r.context = 'code'), (r.contextExplicit = true)),
  'no-strings': (r) => ((r.context = 'code-strict'), (r.contextExplicit = true)),
  'ignore-case': (_r, c) => c(true),
  'case-insensitive': (_r, c) => c(true),
  'case-sensitive': (_r, c) => c(false),
  regex: (r) => r.pattern.type === 'literal' && (r.pattern = { ...r.pattern, type: 'regex' }),
  warning: (r) => (r.kind === 'deny' ? (r.kind = 'warn') : r.kind === 'require' && (r.severity = 'warning')),
  advisory: (r) => (r.kind === 'deny' ? (r.kind = 'warn') : r.kind === 'require' && (r.severity = 'warning')),
};

function splitList(v: string): string[] {
  return v.split(/[,\s]+/).map((x) => x.replace(/^`|`$/g, '').trim()).filter(Boolean);
}

/** Returns false (after a diagnostic) when the modifier is not understood; the rule itself is kept. */
function applyModifier(rule: GuardRule, text: string, line: number, out: AdrRules, setCase: (v: boolean) => void): boolean {
  const flag = FLAGS[text.toLowerCase()];
  if (flag) {
    flag(rule, setCase);
    return true;
  }
  const m = KEYED.exec(text);
  if (!m) {
    const sc = readScopeLine(text); // a nested `- Only in `*_spec.rb` files.` under the rule
    if (sc && !sc.unclear && sc.include.length + sc.exclude.length) {
      for (const u of sc.include) addScope(rule, 'include', u, line);
      for (const u of sc.exclude) addScope(rule, 'exclude', u, line);
      return true;
    }
    diag(out, 'rule.bad-modifier', `unknown modifier '${text}'`, line);
    if (sc) unscoped.add(rule); // a scope we cannot read: never run the rule without it
    return false;
  }
  const key = m[1].toLowerCase();
  const value = m[2].trim();
  switch (key) {
    case 'id':
      if (!value) break;
      rule.id = value.replace(/^`|`$/g, '');
      return true;
    case 'in':
    case 'paths':
    case 'path':
    case 'files':
    case 'scope':
    case 'include':
    case 'only':
    case 'except':
    case 'exclude':
    case 'excludes':
    case 'not-in':
    case 'ignore': {
      const polarity = ['except', 'exclude', 'excludes', 'not-in', 'ignore'].includes(key) ? 'exclude' : 'include';
      const read = readScopeValue(value, polarity);
      for (const u of read.include) addScope(rule, 'include', u, line);
      for (const u of read.exclude) addScope(rule, 'exclude', u, line);
      if (!read.unclear && read.include.length + read.exclude.length) return true;
      diag(out, 'rule.scope-unclear', `${read.unclear ?? `'${key}:' names no path or glob`} — the rule is not checked until its scope is written as globs`, line);
      unscoped.add(rule);
      return false;
    }
    case 'lang':
    case 'langs':
    case 'language': {
      for (const name of splitList(value)) {
        const ids = resolveLangNames(name);
        if (!ids) diag(out, 'rule.bad-modifier', `unknown language '${name}'`, line);
        else rule.langs.push(...ids);
      }
      return true;
    }
    case 'because':
    case 'remediation':
    case 'fix':
      rule.remediation = value;
      return true;
    case 'context': {
      const v = value.toLowerCase() as MatchContext | 'code-only' | 'no-strings';
      if (v === 'code' || v === 'code-only') rule.context = 'code';
      else if (v === 'code-strict' || v === 'no-strings') rule.context = 'code-strict';
      else if (v === 'anywhere') rule.context = 'anywhere';
      else break;
      rule.contextExplicit = true;
      return true;
    }
    case 'case': {
      const v = value.toLowerCase();
      if (v === 'insensitive' || v === 'ignore') setCase(true);
      else if (v === 'sensitive') setCase(false);
      else break;
      return true;
    }
    case 'when':
    case 'trigger': {
      const p = readPattern(value);
      if (p.error || !p.spec || !p.spec.source) {
        diag(out, 'rule.bad-modifier', `bad 'when:' pattern: ${p.error ?? 'empty'}`, line);
        return false;
      }
      rule.when = p.spec;
      rule.text = `${rule.text} when ${p.written}`;
      return true;
    }
    case 'window': {
      const w = parseWindow(value);
      if (!w) break;
      rule.window = w;
      return true;
    }
  }
  diag(out, 'rule.bad-modifier', `unknown or invalid modifier '${text}'`, line);
  return false;
}

export function parseWindow(value: string): RequireWindow | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'statement' || v === 'call') return { kind: 'statement' };
  if (v === 'line' || v === 'same-line' || v === 'same line') return { kind: 'line' };
  if (v === 'file') return { kind: 'file' };
  const m = /^(above|below|around)\s*(\d{1,3})?(?:\s*lines?)?$/.exec(v);
  if (!m) return undefined;
  return { kind: m[1] as 'above' | 'below' | 'around', lines: m[2] ? Number(m[2]) : 3 };
}
