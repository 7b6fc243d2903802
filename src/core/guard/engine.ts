import picomatch from 'picomatch';
import { languageOf, type LanguageInfo } from './languages';
import { LruMap } from './lru';
import { compilePattern, isCallShaped, type CompiledPattern } from './pattern';
import { createClassifier, firstMultilineOpener, quickClass, type FileClassifier, type SyntaxClass } from './syntax';
import { isSuppressed } from './suppress';
import type { ChangedFile, GuardRule, MatchContext, RequireWindow, Violation } from './types';

/**
 * The hot path: rules × added lines → violations. All added lines of the diff are joined into one text so each
 * rule costs one indexOf scan (its literal, or its regex's required literal) instead of one call per line;
 * only lines that contain the literal reach RE2 and, after that, the syntax classifier.
 */

export interface PreparedRule {
  rule: GuardRule;
  /** deny/warn: the pattern; require: the trigger (`when:`). */
  trigger: CompiledPattern;
  companion?: CompiledPattern;
  /** Where a match counts, decided once here (see `effectiveContext`). */
  context: MatchContext;
  applies(path: string, lang: LanguageInfo): boolean;
}

/**
 * Compiled rules are remembered across checks (the MCP server and the editor check for days in one process),
 * keyed by the rule's whole content, so an edited ADR makes new keys: the memo keeps the most recently used ones.
 * 2,048 is ten times the rules of a large vault. (RE2 objects, which live in a fixed 16 MB WASM heap, have their own
 * smaller pool in pattern.ts.)
 */
export const PREPARED_RULE_CAP = 2048;
const compiled = new LruMap<string, PreparedRule>(PREPARED_RULE_CAP, (p) => {
  p.trigger.dispose();
  p.companion?.dispose();
});

/** Compiles each distinct rule once per process (the hook and the MCP server reuse them across checks). */
export function prepareRules(rules: GuardRule[]): PreparedRule[] {
  return rules.map((rule) => {
    const key = JSON.stringify(rule);
    let p = compiled.get(key);
    if (!p) {
      p = prepare(rule);
      compiled.set(key, p);
    }
    return p;
  });
}

/** How many compiled rules the process keeps (for tests of the bound). */
export function preparedRuleCount(): number {
  return compiled.size;
}

/**
 * A call written inside a string literal is not a call: unless the ADR chose a context, a call-shaped pattern
 * (`fetch(`, `os.system(`, `new Function(`) counts in code only, while a text-shaped one (`SELECT * FROM`,
 * `DROP TABLE`) keeps counting inside strings, where SQL lives. For `require` the trigger decides.
 */
export function effectiveContext(rule: GuardRule): MatchContext {
  if (rule.contextExplicit || rule.context !== 'code') return rule.context;
  const trigger = rule.kind === 'require' && rule.when ? rule.when : rule.pattern;
  return isCallShaped(trigger) ? 'code-strict' : 'code';
}

const PROSE = /\.(md|markdown|mdx|txt|rst|adoc)$/i;

function prepare(rule: GuardRule): PreparedRule {
  const inc = globMatcher(rule.include);
  const exc = globMatcher(rule.exclude);
  // Scopes of the list / section the rule sits under: each must match too (an empty set matches nothing).
  const within = (rule.within ?? []).map((g) => globMatcher(g) ?? (() => false));
  const langs = new Set(rule.langs);
  const isRequire = rule.kind === 'require' && rule.when;
  return {
    rule,
    trigger: compilePattern(isRequire ? rule.when! : rule.pattern),
    companion: isRequire ? compilePattern(rule.pattern) : undefined,
    context: effectiveContext(rule),
    applies(path, lang) {
      if (exc?.(path)) return false;
      if (inc && !inc(path)) return false;
      for (const w of within) if (!w(path)) return false;
      if (langs.size && !langs.has(lang.id)) return false;
      // Prose (READMEs, ADRs themselves) quotes code it forbids; only an explicit `in:` or `lang:` checks it.
      if (!inc && !langs.size && PROSE.test(path)) return false;
      return true;
    },
  };
}

/**
 * Compiled matchers by glob set: a check compiles each rule's scope for the rules and again for the scope
 * diagnostics (scopeFiles.ts), and a long-lived host checks the same rules all day. Bounded: a vault has far
 * fewer distinct scopes, and a host that meets more starts over.
 */
const MATCHER_MEMO_MAX = 2048;
const matcherMemo = new Map<string, (path: string) => boolean>();

/** Globs are relative to the repository root; a glob without `/` (`*.test.ts`) matches the file name anywhere. */
export function globMatcher(globs: string[]): ((path: string) => boolean) | undefined {
  if (!globs.length) return undefined;
  const key = globs.join('\0');
  if (matcherMemo.has(key)) return matcherMemo.get(key);
  if (matcherMemo.size >= MATCHER_MEMO_MAX) matcherMemo.clear();
  const m = compileGlobs(globs);
  matcherMemo.set(key, m);
  return m;
}

function compileGlobs(globs: string[]): (path: string) => boolean {
  // `src\**\*.ts` in an ADR written on Windows: backslashes are separators here (userPath.ts), never glob escapes.
  const norm = globs.map((g) => g.replace(/\\/g, '/').replace(/^\.\//, ''));
  const withSlash = norm.filter((g) => g.includes('/'));
  const bare = norm.filter((g) => !g.includes('/'));
  const full = withSlash.length ? picomatch(withSlash, { dot: true }) : undefined;
  const base = bare.length ? picomatch(bare, { dot: true }) : undefined;
  return (path) => !!full?.(path) || !!base?.(path.slice(path.lastIndexOf('/') + 1));
}

/** Full text of the new version of a file (disk, verified against the diff) or the hunk lines with gaps blanked. */
export type ContentProvider = (file: ChangedFile) => string[];

interface Candidate {
  prepared: PreparedRule;
  file: number;
  line: number;
  column: number;
  match: string;
}

export async function runRules(files: ChangedFile[], rules: PreparedRule[], content: ContentProvider): Promise<Violation[]> {
  const langs = files.map((f) => languageOf(f.path));
  // One text of every added line, with a map from offset to (file, line).
  const parts: string[] = [];
  const starts: number[] = [];
  const owner: number[] = [];
  const lineNo: number[] = [];
  let offset = 0;
  files.forEach((f, fi) => {
    for (const a of f.added) {
      parts.push(a.text);
      starts.push(offset);
      owner.push(fi);
      lineNo.push(a.line);
      offset += a.text.length + 1;
    }
  });
  if (!parts.length || !rules.length) return [];
  const text = parts.join('\n');
  let lower: string | undefined;

  const lineAt = (pos: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  const candidates: Candidate[] = [];
  for (const prepared of rules) {
    const scope = new Map<number, boolean>();
    const inScope = (fi: number) => {
      let v = scope.get(fi);
      if (v === undefined) {
        v = prepared.applies(files[fi].path, langs[fi]);
        scope.set(fi, v);
      }
      return v;
    };
    const t = prepared.trigger;
    const scanLine = (k: number) => {
      for (const h of t.matchLine(parts[k])) {
        candidates.push({ prepared, file: owner[k], line: lineNo[k], column: h.index, match: parts[k].slice(h.index, h.index + h.length) });
      }
    };
    if (t.needle) {
      const hay = t.foldCase ? (lower ??= text.toLowerCase()) : text;
      let from = 0;
      for (;;) {
        const at = hay.indexOf(t.needle, from);
        if (at < 0) break;
        const k = lineAt(at);
        if (inScope(owner[k])) scanLine(k);
        from = k + 1 < starts.length ? starts[k + 1] : text.length;
      }
    } else if (t.engine === 'literal' || !t.nextInText) {
      for (let k = 0; k < parts.length; k++) if (inScope(owner[k])) scanLine(k);
    } else if (t.engine === 'v8') {
      // One V8 pass over the joined text (a call per line costs more than the scan); a hit re-checks its line
      // alone and the pass resumes on the next line, as below.
      let from = 0;
      while (from < text.length) {
        const hit = t.nextInText(text, from);
        if (!hit) break;
        const k = lineAt(hit.index);
        if (inScope(owner[k])) scanLine(k);
        from = k + 1 < starts.length ? starts[k + 1] : text.length;
      }
    } else {
      // A regex with no literal every match must contain: RE2 searches windows of whole lines (crossing into
      // WASM per line would cost ~4 µs × lines). RE2 copies its input on every call, so a window starts at one
      // line after each hit and doubles while nothing matches (up to WINDOW_CHARS): a diff where every line
      // matches costs one line per search, a clean one a few large searches; linear either way. A match that
      // spans a line break is not a line match: that line is re-checked alone and the search resumes on the next
      // line, so every line is still judged on its own.
      let k = 0;
      let span = 1;
      while (k < parts.length) {
        let b = k + 1;
        while (b < parts.length && b - k < span && starts[b] - starts[k] + parts[b].length <= WINDOW_CHARS) b++;
        const window = k === 0 && b === parts.length ? text : parts.slice(k, b).join('\n');
        const hit = t.nextInText!(window, 0);
        if (!hit) {
          k = b;
          span *= 2;
          continue;
        }
        const line = Math.min(lineAt(starts[k] + hit.index), b - 1);
        if (inScope(owner[line])) scanLine(line);
        k = line + 1;
        span = 1;
      }
    }
  }
  if (!candidates.length) return [];
  return confirm(candidates, files, langs, content);
}

/** At most this many characters of whole lines per RE2 search (one longer line is searched alone). */
const WINDOW_CHARS = 64 * 1024;

async function confirm(candidates: Candidate[], files: ChangedFile[], langs: LanguageInfo[], content: ContentProvider): Promise<Violation[]> {
  const byFile = new Map<number, Candidate[]>();
  for (const c of candidates) {
    const list = byFile.get(c.file) ?? [];
    list.push(c);
    byFile.set(c.file, list);
  }
  const out: Violation[] = [];
  for (const [fi, list] of byFile) {
    const file = files[fi];
    const lines = content(file);
    let classifier: FileClassifier | undefined;
    let tricky: number | undefined;
    const firstTricky = () => (tricky ??= firstMultilineOpener(lines));
    try {
      for (const c of list) {
        const rule = c.prepared.rule;
        const context = c.prepared.context;
        let where: SyntaxClass = 'code';
        if (context !== 'anywhere' || rule.kind === 'require') {
          const quick = quickClass(langs[fi], lines, c.line, c.column, c.match.length, firstTricky);
          if (quick) where = quick;
          else {
            classifier ??= await createClassifier(langs[fi], lines, list.map((x) => x.line));
            where = classifier.classify(c.line, c.column);
          }
        }
        if (context === 'code' && where === 'comment') continue;
        if (context === 'code-strict' && where !== 'code') continue;
        if (c.prepared.companion && companionPresent(c.prepared.companion, rule.window ?? { kind: 'statement' }, lines, c)) continue;
        // `k0maru-guard-ignore <id>` on the line or the one above (suppress.ts); hunk lines when the file is unreadable.
        if (isSuppressed((n) => lines[n - 1] ?? file.newSideLines.get(n), c.line, rule)) continue;
        out.push({
          ruleId: rule.id,
          kind: rule.kind,
          severity: rule.severity ?? (rule.kind === 'warn' ? 'warning' : 'error'),
          path: file.path,
          line: c.line,
          column: c.column + 1,
          match: c.match,
          rule: rule.text,
          remediation: rule.remediation,
          adrId: rule.adrId,
          adrPath: rule.adrPath,
          context: where,
          inferred: rule.origin === 'inferred',
          ...(rule.origin === 'inferred' ? { sentence: rule.sentence, adrLine: rule.line } : {}),
        });
      }
    } finally {
      classifier?.dispose();
    }
  }
  out.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column || a.ruleId.localeCompare(b.ruleId));
  return out;
}

/**
 * Looks for a `require` rule's companion around its trigger, in the new file (the companion may already exist:
 * only the trigger has to be new). Windows: `line`; `above N` / `below N` / `around N` lines including the
 * trigger's own line; `file`; `statement` = from the trigger to where the brackets it opens close (or the line
 * ends, or a `;`), at most 50 lines.
 */
export function companionPresent(p: CompiledPattern, w: RequireWindow, lines: string[], c: { line: number; column: number }): boolean {
  const idx = c.line - 1;
  const has = (from: number, to: number) => {
    for (let i = Math.max(0, from); i <= Math.min(lines.length - 1, to); i++) if (p.matchLine(lines[i] ?? '').length) return true;
    return false;
  };
  switch (w.kind) {
    case 'line':
      return has(idx, idx);
    case 'above':
      return has(idx - w.lines, idx);
    case 'below':
      return has(idx, idx + w.lines);
    case 'around':
      return has(idx - w.lines, idx + w.lines);
    case 'file':
      return has(0, lines.length - 1);
    case 'statement': {
      const span = statementSpan(lines, idx, c.column);
      return span.some((s) => p.matchLine(s).length > 0);
    }
  }
}

function statementSpan(lines: string[], idx: number, column: number): string[] {
  const span: string[] = [];
  let depth = 0;
  let opened = false;
  for (let li = idx; li < lines.length && li < idx + 50; li++) {
    const text = lines[li] ?? '';
    const startCol = li === idx ? column : 0;
    let end = text.length;
    for (let i = startCol; i < text.length; i++) {
      const ch = text[i];
      if (ch === '(' || ch === '[' || ch === '{') {
        depth++;
        opened = true;
      } else if (ch === ')' || ch === ']' || ch === '}') {
        depth--;
        if (depth < 0 || (opened && depth === 0)) {
          end = i + 1;
          break;
        }
      } else if (ch === ';' && depth <= 0) {
        end = i;
        break;
      }
    }
    span.push(text.slice(startCol, end));
    if (end < text.length || depth <= 0) break;
  }
  return span;
}
