import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';
import type { LanguageInfo } from './languages';

/**
 * Tells whether a match sits in code, a string literal or a comment. Languages with a shipped grammar are parsed
 * with tree-sitter (only files where a pattern already matched, so most hook runs never load it); the others
 * use a lexical scan for the language's comment and quote markers. A Python docstring counts as a comment.
 */

export type SyntaxClass = 'code' | 'string' | 'comment';

type Ts = typeof TreeSitter;
let tsModule: Promise<Ts> | undefined;
const languages = new Map<string, Promise<TreeSitter.Language>>();

/** Beside the bundle (esbuild.mjs copies the wasm files into dist/) or, from source, in the package folder. */
let resolvedDir: string | undefined;
function wasmDir(): string {
  if (resolvedDir) return resolvedDir;
  resolvedDir = __dirname;
  for (let d = __dirname; ; d = dirname(d)) {
    if (existsSync(join(d, 'tree-sitter.wasm'))) return (resolvedDir = d);
    const pkg = join(d, 'node_modules', '@vscode', 'tree-sitter-wasm', 'wasm');
    if (existsSync(pkg)) return (resolvedDir = pkg);
    if (dirname(d) === d) return resolvedDir;
  }
}

function loadTs(): Promise<Ts> {
  tsModule ??= (async () => {
    // Dynamic import: its own chunk in the bundle, loaded only when a file needs classifying.
    const imported = (await import('@vscode/tree-sitter-wasm')) as Ts & { default?: Ts };
    const mod = imported.Parser ? imported : imported.default!;
    const dir = wasmDir();
    await mod.Parser.init({ locateFile: (file: string) => join(dir, file) });
    return mod;
  })();
  return tsModule;
}

async function grammar(name: string): Promise<{ ts: Ts; lang: TreeSitter.Language }> {
  const ts = await loadTs();
  let p = languages.get(name);
  if (!p) {
    p = ts.Language.load(join(wasmDir(), `tree-sitter-${name}.wasm`));
    languages.set(name, p);
  }
  return { ts, lang: await p };
}

const parsers = new Map<string, TreeSitter.Parser>();

/** One parser per grammar for the life of the process: creating one costs more than a small parse (also used by src/core/stale/definitions.ts). */
export async function parserFor(name: string): Promise<TreeSitter.Parser> {
  let p = parsers.get(name);
  if (!p) {
    const { ts, lang } = await grammar(name);
    p = new ts.Parser();
    p.setLanguage(lang);
    parsers.set(name, p);
  }
  return p;
}

/** Classifies positions of one file version; parse once, query many times. */
export interface FileClassifier {
  classify(line: number, column: number): SyntaxClass;
  dispose(): void;
}

/** Files longer than this are parsed only around the matches (a 2,000-line parse costs ~15-30 ms). */
const WINDOW_THRESHOLD = 400;
const WINDOW_BEFORE = 200;
const WINDOW_AFTER = 50;

/**
 * `focus` = the 1-based lines that will be classified. In a long file only [first-200, last+50] is parsed (the
 * other lines are blanked so rows keep their numbers): a comment or string that opened more than 200 lines
 * above a match is the accepted blind spot.
 */
export async function createClassifier(lang: LanguageInfo, lines: string[], focus: number[] = []): Promise<FileClassifier> {
  if (lang.grammar) {
    try {
      const parser = await parserFor(lang.grammar);
      let source = lines;
      if (lines.length > WINDOW_THRESHOLD && focus.length) {
        const from = Math.max(0, Math.min(...focus) - 1 - WINDOW_BEFORE);
        const to = Math.min(lines.length, Math.max(...focus) + WINDOW_AFTER);
        source = lines.map((l, i) => (i >= from && i < to ? l : ''));
      }
      const tree = parser.parse(source.join('\n'));
      if (tree) {
        return {
          classify: (line, column) => classifyNode(tree.rootNode.descendantForPosition({ row: line - 1, column })),
          dispose: () => tree.delete(),
        };
      }
    } catch {
      // A grammar that fails to load must not fail the check: fall back to the lexical scan below.
    }
  }
  return { classify: (line, column) => classifyLexical(lang, lines, line, column), dispose: () => {} };
}

const STRINGISH = /string|char_literal|character_literal|heredoc|rune_literal/;
const CODE_IN_STRING = /^(template_substitution|interpolation|string_interpolation|format_expression|escape_sequence_interpolation)$/;

function classifyNode(node: TreeSitter.Node | null): SyntaxClass {
  for (let n = node; n; n = n.parent) {
    const t = n.type;
    if (t.includes('comment')) return 'comment';
    if (CODE_IN_STRING.test(t)) return 'code';
    if (STRINGISH.test(t)) return isDocstring(n) ? 'comment' : 'string';
  }
  return 'code';
}

/** A Python string that is the first statement of a module, class or function body. */
function isDocstring(n: TreeSitter.Node): boolean {
  let s: TreeSitter.Node | null = n;
  while (s && s.type !== 'string') s = s.parent;
  const stmt = s?.parent;
  if (!s || stmt?.type !== 'expression_statement' || stmt.namedChildCount !== 1) return false;
  const body = stmt.parent;
  if (!body || (body.type !== 'module' && body.type !== 'block')) return false;
  return body.namedChild(0)?.id === stmt.id;
}

/**
 * Answers "code" without a parse when nothing could make the position anything else: no quote, comment marker or
 * `/` before it on its line or inside the match, and no construct that can span lines (block comment, backtick
 * or triple-quoted string, raw string, backslash continuation) anywhere above it in the file. Returns undefined
 * when unsure, and the caller parses. A test checks it never disagrees with tree-sitter.
 */
export function quickCode(lang: LanguageInfo, lines: string[], line: number, column: number, length: number, firstTricky: () => number): 'code' | undefined {
  if (line - 1 >= firstTricky()) return undefined;
  const text = lines[line - 1] ?? '';
  const head = text.slice(0, column + length);
  if (/["'`\\/#]/.test(head)) return undefined;
  // A word that runs into a quote is a string prefix (`f"…"`, `r'…'`, `L"…"`): part of the string to tree-sitter.
  if (/^[\w$@]+["'`]/.test(text.slice(column, column + 8))) return undefined;
  for (const m of lang.lineComments) if (head.includes(m)) return undefined;
  for (const [open] of lang.blockComments) if (head.includes(open)) return undefined;
  return 'code';
}

/** Grammars whose single-line `"…"` / `'…'` strings the lexical fast path below reads exactly like tree-sitter. */
const QUICK_STRING_LANGS = new Set(['ts', 'tsx', 'js', 'python', 'go', 'rust', 'c', 'cpp', 'java', 'csharp']);

/**
 * Like quickCode, but also answers "string" or "comment" without a parse when the line reads plainly: nothing above
 * can open a multi-line construct, and before the position only plain `"…"` / `'…'` strings (no prefix letter or
 * `$`/`@` before the quote, no `{` `$` `#` inside that could start an interpolation), a line comment, and no `/`
 * (regex literal or block comment), backtick or `<` (JSX text, where an apostrophe is not a quote). A Python string
 * that opens its line may be a docstring (a comment to tree-sitter): unsure. The same test as quickCode's checks
 * it against tree-sitter. A call-shaped rule's candidates inside strings are common (log messages, help text):
 * this keeps them from costing a parse each.
 */
export function quickClass(lang: LanguageInfo, lines: string[], line: number, column: number, length: number, firstTricky: () => number): SyntaxClass | undefined {
  const code = quickCode(lang, lines, line, column, length, firstTricky);
  if (code || !QUICK_STRING_LANGS.has(lang.id) || line - 1 >= firstTricky()) return code;
  const text = lines[line - 1] ?? '';
  const templates = lang.id === 'ts' || lang.id === 'tsx' || lang.id === 'js';
  let quote: string | undefined;
  // Inside `${…}` of a one-line template literal: code, with this many unclosed `{`.
  let substitution = 0;
  for (let i = 0; i < column; i++) {
    const c = text[i];
    if (substitution) {
      if (c === '{') substitution++;
      else if (c === '}') substitution--;
      else if (c === '`' || c === '"' || c === "'" || c === '/' || c === '<') return undefined; // nesting: parse
      continue;
    }
    if (quote === '`' && templates) {
      if (c === '\\') i++;
      else if (c === '`') quote = undefined;
      else if (c === '$' && text[i + 1] === '{') {
        substitution = 1;
        i++;
      }
      continue;
    }
    if (quote === '`') {
      if (c === '`') quote = undefined; // Go raw string: no escapes
      continue;
    }
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      else if (c === '{' || c === '$' || c === '#') return undefined;
      continue;
    }
    if (lang.lineComments.some((m) => text.startsWith(m, i))) return 'comment';
    if (c === '`' && (templates || lang.id === 'go')) {
      if (/[\w$]/.test(text[i - 1] ?? '')) return undefined; // a tagged template
      quote = c;
      continue;
    }
    if (c === '`' || c === '/' || c === '<' || c === '\\') return undefined;
    if (c === '#' && lang.id !== 'python') return undefined;
    if (c === '"' || (c === "'" && lang.quotes.includes("'"))) {
      const before = text[i - 1] ?? '';
      if (/[\w$@]/.test(before)) return undefined; // f"…", r'…', L"…", $"…", @"…"
      if (lang.id === 'python' && text.slice(0, i).trim() === '') return undefined;
      quote = c;
      continue;
    }
    if (c === "'") return undefined; // a Rust lifetime or char
  }
  if (substitution) return 'code';
  if (quote) return 'string';
  if (/^[\w$@]+["'`]/.test(text.slice(column, column + 8))) return undefined; // a string prefix, as in quickCode
  return lang.lineComments.some((m) => text.startsWith(m, column)) ? 'comment' : lang.blockComments.some(([o]) => text.startsWith(o, column)) ? undefined : 'code';
}

const MULTILINE_OPENERS = ['`', '"""', "'''", 'r"', 'r#', 'R"', '@"', '[[', '/*', '<!--', '{-', '--[['];

/** Index of the first line holding something that can open a multi-line comment or string (or lines.length). */
export function firstMultilineOpener(lines: string[]): number {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.endsWith('\\')) return i;
    for (const o of MULTILINE_OPENERS) {
      if (!l.includes(o)) continue;
      // A line whose backticks pair up (a one-line template or Go raw string) opens nothing that continues below.
      if (o === '`' && closesOnItsLine(l)) continue;
      return i;
    }
  }
  return lines.length;
}

/** An even number of unescaped backticks and, when `${` appears, as many `}` as `{`. */
function closesOnItsLine(l: string): boolean {
  let ticks = 0;
  for (let i = 0; i < l.length; i++) {
    if (l[i] === '\\') i++;
    else if (l[i] === '`') ticks++;
  }
  if (ticks % 2) return false;
  if (!l.includes('${')) return true;
  let open = 0;
  let close = 0;
  for (const c of l) {
    if (c === '{') open++;
    else if (c === '}') close++;
  }
  return open === close;
}

/**
 * Lexical fallback: walks the text from the top tracking block comments across lines; within a line, line
 * comments and quotes (single-line strings; a backslash escapes the next character).
 */
export function classifyLexical(lang: LanguageInfo, lines: string[], line: number, column: number): SyntaxClass {
  let blockEnd: string | undefined;
  for (let li = 0; li < line && li < lines.length; li++) {
    const text = lines[li];
    const last = li === line - 1;
    let quote: string | undefined;
    for (let i = 0; i < text.length; i++) {
      if (last && i === column) {
        if (blockEnd) return 'comment';
        if (quote) return 'string';
        const opensComment = lang.lineComments.some((m) => text.startsWith(m, i)) || lang.blockComments.some(([o]) => text.startsWith(o, i));
        return opensComment ? 'comment' : 'code';
      }
      if (blockEnd) {
        if (text.startsWith(blockEnd, i)) {
          i += blockEnd.length - 1;
          blockEnd = undefined;
        }
        continue;
      }
      const c = text[i];
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = undefined;
        continue;
      }
      if (lang.lineComments.some((m) => text.startsWith(m, i))) {
        if (last) return 'comment';
        break;
      }
      const block = lang.blockComments.find(([open]) => text.startsWith(open, i));
      if (block) {
        blockEnd = block[1];
        i += block[0].length - 1;
        continue;
      }
      if (lang.quotes.includes(c)) quote = c;
    }
    if (last) return blockEnd ? 'comment' : quote ? 'string' : 'code';
  }
  return blockEnd ? 'comment' : 'code';
}
