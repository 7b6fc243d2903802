import type { AdrSource } from './adrSource';
import { readScopeLine, readScopeValue, splitOutsideCode, type ScopeUnit } from './scopeLines';
import type { RuleKind } from './types';

/**
 * Walks one rules section into its structure: blocks (split at sub-headings), lists of rule items, the list
 * items that scope a whole list (`- scope:`, `- exclude:`, `- Only in `x` files.`), and the section lines that
 * scope the lists (`Applies to: …`). Compiling the rules is ruleParser's job; this file only says what is where.
 */

const ITEM = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$/;
const KEYED = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const KINDS = new Set(['deny', 'warn', 'require']);
const INCLUDE_KEYS = new Set(['scope', 'scopes', 'paths', 'path', 'files', 'file', 'in', 'include', 'includes', 'only', 'applies-to', 'only-in', 'globs', 'glob', 'folders', 'directories', 'dirs']);
const EXCLUDE_KEYS = new Set(['exclude', 'excludes', 'excluded', 'except', 'not-in', 'ignore', 'ignores', 'skip', 'excluding', 'exclude-paths', 'ignore-paths']);

export interface PendingRule {
  line: number;
  indent: number;
  kind: RuleKind;
  rest: string;
  /** 1-based position among the ADR's rule items, so default ids stay stable when a sibling is malformed. */
  ordinal: number;
  modifiers: { text: string; line: number; indent: number; collecting?: boolean }[];
}

export interface ScopeDecl {
  line: number;
  level: 'list' | 'section';
  polarity: 'include' | 'exclude';
  written: string;
  include: ScopeUnit[];
  exclude: ScopeUnit[];
  unclear?: string;
  /** Values still to read (a `- paths:` item's nested globs, the list after "Applies to:"). */
  extra: string[];
  /** Set when the declaration expects values from the following items. */
  open?: boolean;
}

export interface RuleList {
  rules: PendingRule[];
  scopes: ScopeDecl[];
}

export interface RuleBlock {
  lists: RuleList[];
  /** Section lines with the number of lists that started before them. */
  lines: { pos: number; decl: ScopeDecl }[];
}

export type DiagFn = (code: 'rule.unknown-kind' | 'rule.in-example', message: string, line: number) => void;

export function isRuleKind(body: string): RuleKind | undefined {
  const k = KEYED.exec(body);
  const w = k?.[1].toLowerCase();
  return w && KINDS.has(w) ? (w as RuleKind) : undefined;
}

/** A list item that scopes its list: `scope: …`, `exclude: …`, or a scope sentence ("Only in `x` files."). */
export function listScope(body: string, line: number): ScopeDecl | undefined {
  const k = KEYED.exec(body);
  const key = k?.[1].toLowerCase();
  if (k && key && (INCLUDE_KEYS.has(key) || EXCLUDE_KEYS.has(key))) {
    const polarity = INCLUDE_KEYS.has(key) ? 'include' : 'exclude';
    const decl: ScopeDecl = { line, level: 'list', polarity, written: body, include: [], exclude: [], extra: [] };
    if (!k[2].trim()) decl.open = true;
    else decl.extra.push(k[2]);
    return decl;
  }
  const s = readScopeLine(body);
  if (!s) return undefined;
  return { line, level: 'list', polarity: s.polarity, written: body, include: s.include, exclude: s.exclude, unclear: s.unclear, extra: [], open: s.awaitsList };
}

/** Reads the values collected for a declaration; called once the section has been walked. */
export function finishDecl(d: ScopeDecl): void {
  if (d.extra.length) {
    const r = readScopeValue(d.extra.join(', '), d.polarity);
    d.include.push(...r.include);
    d.exclude.push(...r.exclude);
    if (r.unclear) d.unclear = d.unclear ? `${d.unclear}; ${r.unclear}` : r.unclear;
    d.extra = [];
  }
  if (!d.include.length && !d.exclude.length && !d.unclear) d.unclear = `scope '${d.written}' names no path or glob`;
}

/** Sentences of a paragraph line, so "Applies to `src/**`. Generated code is exempt." reads as two. */
function sentences(line: string): string[] {
  return splitOutsideCode(line, /(?<=[.!?])\s+(?=[A-Z*_])/).map((s) => s.trim()).filter(Boolean);
}

export function walkSection(note: AdrSource, from: number, to: number, counter: { n: number }, diag: DiagFn): RuleBlock[] {
  let block: RuleBlock = { lists: [], lines: [] };
  const blocks = [block];
  let list: RuleList | undefined;
  type Last = { kind: 'rule'; p: PendingRule } | { kind: 'scope'; d: ScopeDecl; indent: number };
  let last: Last | undefined;
  let awaiting: ScopeDecl | undefined;
  let prevBlank = false;
  let fenceReported = false;
  for (let fileLine = from; fileLine <= to; fileLine++) {
    const raw = note.lines[fileLine - note.bodyStartLine];
    if (raw === undefined) break;
    if (note.codeLines.has(fileLine)) {
      // Fenced examples are never rules, scopes or continuations; a rule-shaped line in one is pointed out once
      // per fence, so a rule someone meant to enforce is not silently inert.
      const im = ITEM.exec(raw);
      if (!fenceReported && im && isRuleKind(im[2].trim())) {
        fenceReported = true;
        diag('rule.in-example', `'${im[2].trim().slice(0, 60)}' is inside a fenced code block: an example, not a rule (move it out of the fence to enforce it)`, fileLine);
      }
      continue;
    }
    fenceReported = false;
    if (HEADING.test(raw)) {
      block = { lists: [], lines: [] };
      blocks.push(block);
      list = undefined;
      last = undefined;
      awaiting = undefined;
      continue;
    }
    if (!raw.trim()) {
      prevBlank = true;
      continue;
    }
    const blank = prevBlank;
    prevBlank = false;
    const m = ITEM.exec(raw);
    if (!m) {
      const indent = /^\s*/.exec(raw)![0].replace(/\t/g, '    ').length;
      if (last && !blank && indent >= 2) {
        // A wrapped item: the text continues the item (a long sentence require, a long `because:`).
        if (last.kind === 'rule') {
          const mod = last.p.modifiers[last.p.modifiers.length - 1];
          if (mod) mod.text += ' ' + raw.trim();
          else last.p.rest += ' ' + raw.trim();
        } else last.d.extra.push(raw.trim());
        continue;
      }
      list = undefined;
      last = undefined;
      awaiting = undefined;
      for (const sentence of sentences(raw)) {
        const s = readScopeLine(sentence);
        if (!s) continue;
        const decl: ScopeDecl = { line: fileLine, level: 'section', polarity: s.polarity, written: sentence, include: s.include, exclude: s.exclude, unclear: s.unclear, extra: [], open: s.awaitsList };
        block.lines.push({ pos: block.lists.length, decl });
        if (decl.open) awaiting = decl;
      }
      continue;
    }
    const indent = m[1].replace(/\t/g, '    ').length;
    // `- **deny:** `x``, `- *Require*: …`: emphasis around the kind is formatting, not a different kind.
    const body = m[2].trim().replace(/^(\*\*|__|\*|_)(deny|warn|require)(:?)\1(:?)(?=\s|$)/i, (_a, _m, k: string, c1: string, c2: string) => (c1 || c2 ? `${k}:` : _a));
    const kind = isRuleKind(body);
    if (awaiting) {
      // "Applies to:" followed by a list of globs: those items are its values, not rules. The first rule item
      // ends the glob list and starts an ordinary list.
      if (!kind) {
        awaiting.extra.push(body);
        continue;
      }
      awaiting = undefined;
    }
    if (!list) {
      list = { rules: [], scopes: [] };
      block.lists.push(list);
    }
    if (last?.kind === 'rule' && indent > last.p.indent && !kind) {
      const mods = last.p.modifiers;
      const prev = mods[mods.length - 1];
      if (prev && indent > prev.indent && (prev.collecting || /:\s*$/.test(prev.text))) {
        // `- in:` followed by deeper items: the items are its values.
        prev.text += (prev.collecting ? ', ' : ' ') + body;
        prev.collecting = true;
      } else mods.push({ text: body, line: fileLine, indent });
      continue;
    }
    if (last?.kind === 'scope' && indent > last.indent && !kind) {
      last.d.extra.push(body);
      continue;
    }
    if (kind) {
      const p: PendingRule = { line: fileLine, indent, kind, rest: KEYED.exec(body)![2], ordinal: ++counter.n, modifiers: [] };
      list.rules.push(p);
      last = { kind: 'rule', p };
      continue;
    }
    const decl = listScope(body, fileLine);
    if (decl) {
      list.scopes.push(decl);
      last = { kind: 'scope', d: decl, indent };
      continue;
    }
    last = undefined;
    // `word: …` reads as a rule attempt; `https://…` or `12:30` do not.
    const keyed = KEYED.exec(body);
    if (keyed && /^[A-Za-z][\w-]*\s*:(\s|$)/.test(body)) diag('rule.unknown-kind', `unknown rule kind '${keyed[1]}' (expected deny, warn or require)`, fileLine);
  }
  for (const b of blocks) {
    for (const l of b.lines) finishDecl(l.decl);
    for (const li of b.lists) for (const d of li.scopes) finishDecl(d);
  }
  return blocks;
}

const FM_INCLUDE = ['scope', 'applies_to', 'applies-to', 'appliesTo', 'guard_scope', 'guard-scope'];
const FM_EXCLUDE = ['exclude', 'excludes', 'guard_exclude', 'guard-exclude'];

/** ADR-wide scope from the frontmatter (`scope: services/**`, `applies_to: [a/**, b/**]`): outermost level. */
export function frontmatterScopes(fm: Record<string, unknown>): ScopeDecl[] {
  const out: ScopeDecl[] = [];
  for (const [keys, polarity] of [[FM_INCLUDE, 'include'], [FM_EXCLUDE, 'exclude']] as const) {
    for (const k of keys) {
      const v = fm[k];
      const text = Array.isArray(v) ? v.map(String).join(', ') : typeof v === 'string' ? v.replace(/^\[|\]$/g, '') : undefined;
      if (text === undefined || !text.trim()) continue;
      const d: ScopeDecl = { line: 1, level: 'section', polarity, written: `${k}: ${text}`, include: [], exclude: [], extra: [text] };
      finishDecl(d);
      out.push(d);
    }
  }
  return out;
}

/**
 * Scope lines in the paragraph right above a rules heading ("Applies to: `services/**`" then `## Rules`): the
 * ADR put them just above the list. Only lines that read as a scope count; prose there is ignored.
 */
export function linesAbove(note: AdrSource, headingLine: number): ScopeDecl[] {
  const out: ScopeDecl[] = [];
  let l = headingLine - 1;
  while (l >= note.bodyStartLine && !note.lines[l - note.bodyStartLine]?.trim()) l--;
  for (let n = 0; l >= note.bodyStartLine && n < 6; l--, n++) {
    const raw = note.lines[l - note.bodyStartLine] ?? '';
    if (!raw.trim() || note.codeLines.has(l) || HEADING.test(raw) || ITEM.test(raw)) break;
    const s = readScopeLine(raw);
    if (s && !s.awaitsList) out.push({ line: l, level: 'section', polarity: s.polarity, written: raw.trim(), include: s.include, exclude: s.exclude, unclear: s.unclear, extra: [] });
  }
  return out;
}

/** "## Rules for `services/`", "## Guard (web/**)": a scope in the rules heading itself. */
export function headingScope(text: string, line: number): ScopeDecl[] {
  const m = /^(?:invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?|regeln|invarianten|règles|reglas|regras|ルール|規則)(?![A-Za-z0-9_])\s*(?:[-—–:]\s*)?(?:\(\s*)?(?:(?:that\s+)?(?:apply\s+)?(?:for|in|under|within|on|to)\s+)(.+?)\)?\s*$/i.exec(text.trim())
    ?? /^(?:invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?|regeln|invarianten|règles|reglas|regras|ルール|規則)\s*\((.+)\)\s*$/i.exec(text.trim());
  if (!m) return [];
  const r = readScopeValue(m[1], 'include', false);
  if (!r.hadCode && !r.include.some((u) => u.globs.some((g) => /[*/]/.test(g)))) return [];
  if (r.unclear || !r.include.length) return [];
  return [{ line, level: 'section', polarity: 'include', written: text, include: r.include, exclude: r.exclude, extra: [] }];
}
