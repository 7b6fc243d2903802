import type { GuardRule, PatternSpec } from './types';

/**
 * What a code span in a decision sentence stands for, as a pattern the engine runs (inferred.ts). A package
 * name means its import, in the forms code really imports with (`import x from 'lodash'`, `import 'lodash/fp'`,
 * `import('lodash')`, `require("lodash")`, `export … from 'lodash'`, Python `from lodash import` / `import
 * lodash`) — never the bare word, which appears in identifiers, prose and URLs. An identifier or member
 * (`React.FC`, `console.log`) matches as a whole word in code only (not in strings or comments); a call shape
 * (`eval(`) as a call. Other text (`SELECT *`, `--force`) is a literal. Paths and file names are scopes, not
 * patterns. Every regex is written so the rule round-trips through the explicit grammar (`/…/` with `\/`).
 */

export interface SpanPattern {
  pattern: PatternSpec;
  langs: string[];
  context: GuardRule['context'];
  /** For reports: `deny import of lodash`, `deny React.FC`. */
  describe: string;
}

const IMPORT_CONTEXT = /\b(?:import|imports|importing|imported|package|packages|library|libraries|dependency|dependencies|depend|depending|module|modules|npm|yarn|pnpm|pip|gem|gems|crate|crates|install|installing|installed)\b/i;
/** Lowercase words that are code (keywords, globals, builtins), not package names. */
const CODE_WORDS: Record<string, string[]> = {
  any: ['ts'], var: ['ts', 'js'], eval: [], alert: [], fetch: [], print: ['python'], console: [], document: [], window: [],
  localstorage: [], sessionstorage: [], require: [], process: [], exec: [], system: [], panic: ['go', 'rust'], goto: [],
  debugger: ['ts', 'js'], assert: [], unsafe: ['rust', 'csharp'], unwrap: ['rust'], expect: ['rust'], setinterval: [], settimeout: [],
  innerhtml: [], globalthis: [], arguments: ['ts', 'js'], with: ['ts', 'js'], void: [], delete: ['ts', 'js'], new: [], this: [], self: [],
  super: [], yield: [], async: [], await: [], let: [], const: [], global: [], nonlocal: ['python'], lambda: [], input: ['python'],
  pickle: ['python'], os: ['python'], sys: ['python'],
};
const PACKAGE = /^(?:@[a-z0-9][a-z0-9.-]*\/)?[a-z0-9][a-z0-9.-]*(?:\/[a-z0-9._-]+)*$/;
const IDENT = /^[A-Za-z_$][\w$]*$/;
const MEMBER = /^[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)+$/;
const CALL = /^([A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*)\s*\((?:\s*|\.\.\.|…)\)?;?$/;
const FILE_EXT = /\.(?:json|jsonc|ya?ml|toml|env|md|mdx|txt|lock|cfg|ini|xml|html?|css|scss|less|[cm]?[jt]sx?|py|go|rb|rs|java|kts?|cs|php|sh|sql|conf|properties|gradle|csv|tf|proto|graphql|gql|lua|swift|scala|c|h|cc|cpp|hpp|vue|svelte)$/i;

/** Regex source with `/` escaped too, so it can be written back as `/…/` in an explicit rule. */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** A glob for a span that names files (`packages/web` → `packages/web/**`), or undefined when it is not a path. */
export function scopeGlob(span: string): string | undefined {
  let t = span.trim();
  if (!t || /\s/.test(t) || /^[a-z][\w+.-]*:\/\//i.test(t) || t.startsWith('@')) return undefined;
  if (!/[/*]/.test(t) && !FILE_EXT.test(t) && !/^\.[a-z][\w-]*$/.test(t)) return undefined;
  if (/[(){}<>;"'=`]/.test(t)) return undefined;
  t = t.replace(/^\.\//, '').replace(/^\//, '');
  if (!t) return undefined;
  if (t.endsWith('/')) return `${t}**`;
  if (/[*?[]/.test(t) || FILE_EXT.test(t) || /^\.[a-z][\w-]*$/.test(t)) return t;
  return `${t}/**`;
}

export function importPattern(pkg: string): PatternSpec {
  const p = escapeRegex(pkg);
  // JS/TS/Ruby: the quoted name after from / import / require, optionally with a subpath; Python: import
  // statements at the start of a line. A package whose name is an identifier (`moment`, `axios`) is also
  // matched where code uses it by that name: `moment(d)`, `moment.utc(` (not `x.moment(`, not in strings —
  // the rule counts code only). The name stands alone between the alternatives, so the engine's prefilter
  // finds it with indexOf before any regex runs.
  const ident = /^[A-Za-z_$][\w$]*$/.test(pkg);
  const prefix = `(?:\\b(?:from|import|require)\\s*\\(?\\s*['"]|^\\s*(?:from|import)\\s+${ident ? `|(?:^|[^\\w.$'"\\/@-])` : ''})`;
  const suffix = `(?:['"\\/]${ident ? `|\\s*\\(|\\.[A-Za-z_$]` : ''}|(?:\\.[\\w.]+)?(?:\\s+import\\b|\\s+as\\b|\\s*[,;#]|\\s*$))`;
  return { type: 'regex', source: `${prefix}${p}${suffix}`, ignoreCase: false };
}

function wordPattern(name: string, call: boolean): PatternSpec {
  const esc = escapeRegex(name);
  const lead = /^[A-Za-z0-9_]/.test(name) ? '\\b' : '';
  const tail = call ? '\\s*\\(' : /[A-Za-z0-9_]$/.test(name) ? '\\b' : '';
  return { type: 'regex', source: `${lead}${esc}${tail}`, ignoreCase: false };
}

/**
 * The pattern for one forbidden span, or undefined when the span is not something lines of code can contain
 * (a path, a file name, a URL, one character).
 */
export function codeSpanPattern(span: string, sentence: string): SpanPattern | undefined {
  const t = span.trim();
  if (t.length < 2 || /^[\W_]+$/.test(t) || /^[a-z][\w+.-]*:\/\//i.test(t)) return undefined;
  const importy = IMPORT_CONTEXT.test(sentence);
  const imp = (pkg: string): SpanPattern => ({ pattern: importPattern(pkg), langs: [], context: 'code-strict', describe: `deny import of ${pkg}` });
  const word = (name: string, call: boolean, langs: string[] = []): SpanPattern => ({
    pattern: wordPattern(name, call), langs, context: 'code-strict', describe: `deny ${name}${call ? '(' : ''}`,
  });
  if (importy && /^[a-z][a-z0-9_]*$/.test(t) && !(t in CODE_WORDS)) return imp(t);
  if (PACKAGE.test(t)) {
    // `@scope/name` is always a package; `lodash/fp` one when the sentence speaks of importing (else a path);
    // `socket.io` one when it does (else a member such as `console.log`); a plain word unless it is code.
    if (t.startsWith('@')) return imp(t);
    if (t.includes('/')) return importy && !t.endsWith('/') ? imp(t) : undefined;
    if (t.includes('.')) {
      if (importy) return imp(t);
      if (FILE_EXT.test(t)) return undefined;
      return MEMBER.test(t) ? word(t, false) : undefined;
    }
    const lower = t.toLowerCase();
    if (lower in CODE_WORDS) return word(t, false, CODE_WORDS[lower]);
    return imp(t);
  }
  // Product names such as `Moment.js` mean the package.
  if (/^[A-Z][A-Za-z0-9-]*\.js$/.test(t)) return imp(t.slice(0, -3).toLowerCase());
  if (scopeGlob(t)) return undefined;
  const call = CALL.exec(t);
  if (call && t.includes('(')) return word(call[1], true);
  if (MEMBER.test(t)) return word(t.replace(/#/g, '.'), false);
  if (IDENT.test(t)) {
    const lower = t.toLowerCase();
    return word(t, false, CODE_WORDS[lower] ?? []);
  }
  if (t.length < 3) return undefined;
  // Text: SQL, flags, directives. Strings count (SQL lives in query strings); comments count only when the
  // sentence is about comments (`eslint-disable`, `@ts-ignore`).
  const anywhere = /\bcomments?\b|\bdirectives?\b/i.test(sentence);
  return { pattern: { type: 'literal', source: t, ignoreCase: false }, langs: [], context: anywhere ? 'anywhere' : 'code', describe: `deny: ${t}` };
}

/**
 * A span the sentence says not to call or instantiate: an identifier or member is then a method or class, never
 * a package ("Never call `constantize`" is Ruby's `.constantize`, not an import of a gem). Instantiation is the
 * `new` expression only, so a type annotation or an import of the class is not a finding. Undefined: not such a
 * span (a call shape, a package path, text), and codeSpanPattern decides.
 */
export function verbSpanPattern(span: string, verb: 'call' | 'new'): SpanPattern | undefined {
  const t = span.trim();
  if (!IDENT.test(t) && !MEMBER.test(t)) return undefined;
  const name = t.replace(/#/g, '.');
  if (verb === 'new') {
    if (!/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(name)) return undefined;
    return { pattern: { type: 'regex', source: `\\bnew\\s+${escapeRegex(name)}\\b`, ignoreCase: false }, langs: [], context: 'code-strict', describe: `deny new ${name}` };
  }
  return { pattern: wordPattern(name, false), langs: CODE_WORDS[name.toLowerCase()] ?? [], context: 'code-strict', describe: `deny ${name}` };
}
