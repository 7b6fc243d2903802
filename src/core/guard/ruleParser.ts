import type { ParsedNote } from '../vault/markdown';
import { scanAdr, sourceFromNote, type AdrSource } from './adrSource';
import { resolveLangNames } from './languages';
import type { AdrRules, GuardDiagnostic, GuardRule, MatchContext, PatternSpec, RequireWindow, RuleKind } from './types';

/**
 * Reads the rule language out of an ADR (grammar and examples: docs/guard.md). Rules live as list items in a
 * section headed Invariants / Rules / Guard; fenced code blocks inside it are examples and never rules. Rule text
 * is read from the raw Markdown lines (the rendered inline text has escapes such as `\(` removed, which would
 * change a regex). Nothing here throws on bad input: a malformed rule becomes a diagnostic at its ADR line.
 */

const SECTION = /^(invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?)\b/i;
/** Cheap test on the raw file so notes without a guard section are never parsed by the guard. */
export const GUARD_SECTION_RE = /^#{1,6}[ \t]+(invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?)\b/im;
const ITEM = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$/;
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
  const codeLines = note.codeLines;

  const lastFileLine = note.bodyStartLine + note.lines.length - 1;
  const counter = { n: 0 };
  note.headings.forEach((h, hi) => {
    if (!SECTION.test(h.text.trim())) return;
    const next = note.headings.slice(hi + 1).find((n) => n.level <= h.level);
    const end = next ? next.line - 1 : lastFileLine;
    parseSection(note, h.line + 1, end, codeLines, out, counter, validateRegex);
  });
  return out;
}

interface Pending {
  line: number;
  indent: number;
  kind: RuleKind;
  rest: string;
  /** 1-based position among the ADR's rule items, so default ids stay stable when a sibling is malformed. */
  ordinal: number;
  modifiers: { text: string; line: number }[];
}

function parseSection(
  note: AdrSource, from: number, to: number, codeLines: Set<number>, out: AdrRules, counter: { n: number }, validate?: RegexValidator,
): void {
  let pending: Pending | undefined;
  const finish = () => {
    if (pending) compileRule(pending, out, validate);
    pending = undefined;
  };
  for (let fileLine = from; fileLine <= to; fileLine++) {
    if (codeLines.has(fileLine)) continue;
    const raw = note.lines[fileLine - note.bodyStartLine];
    if (raw === undefined) break;
    const m = ITEM.exec(raw);
    if (!m) continue;
    const indent = m[1].replace(/\t/g, '    ').length;
    const body = m[2].trim();
    if (pending && indent > pending.indent) {
      pending.modifiers.push({ text: body, line: fileLine });
      continue;
    }
    finish();
    const keyed = KEYED.exec(body);
    if (!keyed) continue; // prose bullet: not a rule attempt
    const word = keyed[1].toLowerCase();
    if (word === 'deny' || word === 'warn' || word === 'require') {
      pending = { line: fileLine, indent, kind: word, rest: keyed[2], ordinal: ++counter.n, modifiers: [] };
    } else if (/^[A-Za-z][\w-]*\s*:(\s|$)/.test(body)) {
      // `word: …` reads as a rule attempt; `https://…` or `12:30` do not.
      diag(out, 'rule.unknown-kind', `unknown rule kind '${keyed[1]}' (expected deny, warn or require)`, fileLine);
    }
  }
  finish();
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

function compileRule(p: Pending, out: AdrRules, validate?: RegexValidator): void {
  const head = readPattern(p.rest);
  if (head.error) return diag(out, head.error.startsWith('unterminated') ? 'rule.unterminated' : 'rule.bad-regex', head.error, p.line);
  if (!head.spec || head.spec.source === '') return diag(out, 'rule.empty-pattern', `'${p.kind}:' needs a pattern`, p.line);
  const rest = head.rest.trim();
  if (rest && !rest.startsWith('|')) {
    return diag(out, 'rule.bad-modifier', `unexpected text after the pattern: '${rest}' (separate modifiers with ' | ')`, p.line);
  }
  const mods = rest
    ? rest.slice(1).split(' | ').map((t) => ({ text: t.trim(), line: p.line })).filter((m) => m.text)
    : [];
  mods.push(...p.modifiers);

  const rule: GuardRule = {
    id: `${out.adrId}#${p.ordinal}`,
    kind: p.kind,
    pattern: head.spec,
    include: [],
    exclude: [],
    langs: [],
    context: 'code',
    text: `${p.kind}: ${head.written}`,
    adrId: out.adrId,
    adrPath: out.adrPath,
    adrTitle: out.title,
    line: p.line,
  };
  let ignoreCase = false;
  for (const m of mods) if (!applyModifier(rule, m.text, m.line, out, (v) => (ignoreCase = v))) continue;
  if (ignoreCase) {
    rule.pattern = { ...rule.pattern, ignoreCase: true };
    if (rule.when) rule.when = { ...rule.when, ignoreCase: true };
  }
  if (rule.kind === 'require') {
    if (!rule.when) return diag(out, 'rule.missing-when', "'require:' needs a trigger: add '| when: <pattern>'", p.line);
    rule.window ??= { kind: 'statement' };
  }
  for (const spec of [rule.pattern, rule.when]) {
    if (spec?.type !== 'regex' || !validate) continue;
    const err = validate(spec.source, spec.ignoreCase);
    if (err) return diag(out, 'rule.bad-regex', `invalid regex /${spec.source}/: ${err}`, p.line);
  }
  out.rules.push(rule);
}

const FLAGS: Record<string, (r: GuardRule, setCase: (v: boolean) => void) => void> = {
  anywhere: (r) => (r.context = 'anywhere'),
  'code-only': (r) => (r.context = 'code'),
  'no-strings': (r) => (r.context = 'code-strict'),
  'ignore-case': (_r, c) => c(true),
  'case-insensitive': (_r, c) => c(true),
  'case-sensitive': (_r, c) => c(false),
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
    diag(out, 'rule.bad-modifier', `unknown modifier '${text}'`, line);
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
    case 'files':
      rule.include.push(...splitList(value));
      return true;
    case 'except':
    case 'exclude':
      rule.exclude.push(...splitList(value));
      return true;
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
