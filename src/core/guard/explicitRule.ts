import { readScopeLine } from './scopeLines';
import type { GuardRule, PatternSpec } from './types';

/**
 * Writes a rule in the explicit rule language of docs/guard.md (`- deny: /…/ | in: … | no-strings | because: …`)
 * and finds where it goes in an ADR: the editor's "Write as an explicit rule" and `--explain-rules` show the
 * explicit form of an inferred rule. The line parses back to the same pattern, scope and window, so the
 * inferred duplicate stops firing once it is written (inferredPolicy.ts). Pure text: no vscode, no fs.
 */

function writePattern(p: PatternSpec): string {
  if (p.type === 'regex') return `/${p.source}/${p.ignoreCase ? 'i' : ''}`;
  // Backticks always: a literal may contain ` | ` or start with `/`; a longer fence when it holds backticks.
  const longest = Math.max(0, ...[...p.source.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = p.source.startsWith('`') || p.source.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${p.source}${pad}${fence}`;
}

/** ` | ` separates modifiers, so free text must not contain it. */
const text = (s: string) => s.replace(/\s+/g, ' ').replace(/ \| /g, ' / ').trim();

export function explicitRuleLine(rule: GuardRule): string {
  const parts = [`- ${rule.kind}: ${writePattern(rule.pattern)}`];
  if (rule.when) parts.push(`when: ${writePattern(rule.when)}`);
  if (rule.kind === 'require' && rule.window) {
    const w = rule.window;
    parts.push(`window: ${w.kind === 'above' || w.kind === 'below' || w.kind === 'around' ? `${w.kind} ${w.lines}` : w.kind}`);
  }
  if (rule.include.length) parts.push(`in: ${rule.include.join(', ')}`);
  if (rule.exclude.length) parts.push(`except: ${rule.exclude.join(', ')}`);
  if (rule.langs.length) parts.push(`lang: ${[...new Set(rule.langs)].join(', ')}`);
  if (rule.context === 'code-strict') parts.push('no-strings');
  else if (rule.context === 'anywhere') parts.push('anywhere');
  const because = rule.remediation ?? rule.sentence;
  if (because) parts.push(`because: ${text(because)}`);
  return parts.join(' | ');
}

const GUARD_HEADING = /^ {0,3}(#{1,6})[ \t]+(invariants?|rules|guard|guard ?rules|guardrails|k-dsl invariants?)\b/i;
const ANY_HEADING = /^ {0,3}(#{1,6})[ \t]/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+/;
const SCOPE_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:scope|paths|files|exclude|except|applies[ -]to)\s*:/i;

export interface TextInsertion {
  /** 0-based line before which `text` is inserted (may equal the line count: append). */
  line: number;
  text: string;
}

/**
 * Where the explicit line goes: after the last list item of the ADR's first guard section (`## Invariants`,
 * `## Rules`, …), or right under its heading when it has none; without a guard section — or when that section
 * declares a scope its rules share, which would narrow the written rule — a new `## Invariants` section at the
 * end of the ADR.
 */
export function explicitRuleInsertion(raw: string, rule: GuardRule): TextInsertion {
  const lines = raw.replace(/\r\n?/g, '\n').split('\n');
  const line = explicitRuleLine(rule);
  let fence: string | undefined;
  let section: { level: number; start: number; scoped: boolean } | undefined;
  let lastItem = -1;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const f = FENCE.exec(l);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = undefined;
      continue;
    }
    if (f) {
      fence = f[1];
      continue;
    }
    const h = ANY_HEADING.exec(l);
    if (section) {
      if (h && h[1].length <= section.level) break;
      // A section whose rules share a declared scope would narrow the written rule: give it a section of its own.
      if (SCOPE_ITEM.test(l) || (!ITEM.test(l) && readScopeLine(l.trim()))) section.scoped = true;
      if (ITEM.test(l)) lastItem = i;
      else if (lastItem >= 0 && /^\s{2,}\S/.test(l)) lastItem = i; // a nested modifier belongs to its rule
      continue;
    }
    const g = GUARD_HEADING.exec(l);
    if (g) section = { level: g[1].length, start: i, scoped: false };
  }
  if (section && !section.scoped) {
    if (lastItem >= 0) return { line: lastItem + 1, text: `${line}\n` };
    return { line: section.start + 1, text: `\n${line}\n` };
  }
  let end = lines.length;
  while (end > 0 && lines[end - 1].trim() === '') end--;
  return { line: end, text: `\n## Invariants\n\n${line}\n` };
}
