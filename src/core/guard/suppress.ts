/**
 * Inline suppression: `k0maru-guard-ignore <id>[, <id>…] [-- reason]` on the flagged line or on the line directly
 * above it silences the named rules (a rule id or its ADR's id, case-insensitive) for that one line; on the line above, the comment must stand on its own line. It lives in a
 * comment of whatever language the file is in; the guard does not parse the comment, it only looks for the marker
 * word, which no program text contains by accident. Naming the rule is required: a bare marker suppresses nothing,
 * so a new rule added to the ADR later is never silenced by an old comment. Checked in the engine, so the CLI, the
 * git hook, the Stop hook, the MCP tool and the editor all honour it (docs/guard.md, "Suppressing one line").
 */
export const SUPPRESS_MARKER = 'k0maru-guard-ignore';

// The id list runs until a reason (`--`), a comment closer or the end of the line.
const MARKER = /k0maru-guard-ignore\b[ \t:]*([^\n]*)/i;
const OWN_LINE = /^\s*(?:\/\/+|#+|--+|\/\*+|<!--|%+|;+|\*+|'|REM\b)?\s*k0maru-guard-ignore\b/i;
const ID = /^[A-Za-z0-9_][\w.:#/-]*$/;

/** The ids a line's marker names (lower-cased), or none. */
export function suppressedIds(line: string | undefined): string[] {
  if (!line || !line.toLowerCase().includes(SUPPRESS_MARKER)) return [];
  const m = MARKER.exec(line);
  if (!m) return [];
  const list = m[1].split(/\s--\s|--$|\*\/|-->|\s#\s/)[0];
  return list
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter((t) => ID.test(t))
    .map((t) => t.toLowerCase());
}

/** Is the violation of `rule` at 1-based `line` suppressed by a marker on that line or the one above? */
export function isSuppressed(lineText: (line: number) => string | undefined, line: number, rule: { id: string; adrId: string }): boolean {
  const ids = [rule.id.toLowerCase(), rule.adrId.toLowerCase()];
  if (suppressedIds(lineText(line)).some((id) => ids.includes(id))) return true;
  // The line above counts only when it is the marker's own comment line: a marker trailing code there is that
  // line's suppression, not the next one's.
  const above = line > 1 ? lineText(line - 1) : undefined;
  return !!above && OWN_LINE.test(above) && suppressedIds(above).some((id) => ids.includes(id));
}

/** The comment a quick fix inserts above a line, in the file's comment syntax (by VS Code language id). */
export function suppressionComment(languageId: string, ruleId: string): string {
  const text = `${SUPPRESS_MARKER} ${ruleId}`;
  const style = COMMENT_STYLE[languageId] ?? 'slash';
  if (style === 'hash') return `# ${text}`;
  if (style === 'dash') return `-- ${text}`;
  if (style === 'percent') return `% ${text}`;
  if (style === 'semicolon') return `; ${text}`;
  if (style === 'html') return `<!-- ${text} -->`;
  if (style === 'block') return `/* ${text} */`;
  return `// ${text}`;
}

type CommentStyle = 'slash' | 'hash' | 'dash' | 'percent' | 'semicolon' | 'html' | 'block';
const COMMENT_STYLE: Record<string, CommentStyle> = Object.fromEntries([
  ...['python', 'ruby', 'shellscript', 'perl', 'r', 'yaml', 'toml', 'dockerfile', 'makefile', 'powershell', 'coffeescript', 'elixir', 'julia', 'nim', 'properties', 'ini', 'cmake', 'graphql', 'terraform', 'hcl', 'nix', 'crystal', 'tcl'].map((l) => [l, 'hash'] as const),
  ...['sql', 'lua', 'haskell', 'ada', 'elm', 'purescript', 'vhdl', 'plsql'].map((l) => [l, 'dash'] as const),
  ...['latex', 'tex', 'erlang', 'matlab', 'prolog'].map((l) => [l, 'percent'] as const),
  ...['clojure', 'lisp', 'scheme', 'asm', 'racket'].map((l) => [l, 'semicolon'] as const),
  ...['html', 'xml', 'markdown', 'vue-html', 'svg', 'xsl'].map((l) => [l, 'html'] as const),
  ...['css', 'scss', 'less'].map((l) => [l, 'block'] as const),
]);
