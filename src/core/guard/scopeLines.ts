/**
 * Scopes written the way people write them: "Applies to: `services/**`", "Only in `*_spec.rb` files.",
 * "Excludes: fixtures/**", "under web/components/". The reader is deliberately conservative in one direction
 * and strict in the other: prose never becomes a scope (a line needs a scope lead *and* something that is
 * unmistakably a path), but a line that clearly declares a scope and cannot be read is reported (and the rules
 * it governs are disabled by the caller), because a lost scope makes a rule fire where it was never meant to.
 */

export interface ScopeUnit {
  /** As written (`web/components`, `TypeScript files under services/`), for reports. */
  written: string;
  /** What it means; a file is in the unit when it matches one of them (engine glob rules). */
  globs: string[];
}

export interface ScopeRead {
  include: ScopeUnit[];
  exclude: ScopeUnit[];
  /** Set when part of a declared scope was not understood; `include`/`exclude` hold what was read. */
  unclear?: string;
  /** A strong lead with nothing after it ("Applies to:"): the globs follow as a list. */
  awaitsList?: boolean;
}

export interface Segment {
  code: boolean;
  text: string;
  /** Offset of the segment in the source text (code spans: of the opening backtick). */
  start: number;
}

/** Splits text into code spans and the prose between them (backtick runs of equal length close a span). */
export function segments(text: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  let last = 0;
  while (i < text.length) {
    if (text[i] !== '`') {
      i++;
      continue;
    }
    let j = i;
    while (text[j] === '`') j++;
    const ticks = text.slice(i, j);
    const close = text.indexOf(ticks, j);
    if (close < 0) break;
    if (i > last) out.push({ code: false, text: text.slice(last, i), start: last });
    let inner = text.slice(j, close);
    if (inner.length > 2 && inner.startsWith(' ') && inner.endsWith(' ')) inner = inner.slice(1, -1);
    out.push({ code: true, text: inner, start: i });
    i = close + ticks.length;
    last = i;
  }
  if (last < text.length) out.push({ code: false, text: text.slice(last), start: last });
  return out;
}

/**
 * Splits text at the matches of `sep` in its prose, never inside a code span; code spans come back wrapped in
 * single backticks. Pieces are untrimmed and may be empty.
 */
export function splitOutsideCode(text: string, sep: RegExp): string[] {
  const out: string[] = [];
  let cur = '';
  for (const seg of segments(text)) {
    if (seg.code) {
      cur += '`' + seg.text + '`';
      continue;
    }
    const bits = seg.text.split(sep);
    cur += bits[0];
    for (const b of bits.slice(1)) {
      out.push(cur);
      cur = b;
    }
  }
  out.push(cur);
  return out;
}

const GLOB_CHARS = /[*?[{]/;
const NOT_PATHS = new Set(['and/or', 'either/or', 'i/o', 'n/a', 'w/o', 'w/', 'read/write', 'on/off', 'yes/no', 'true/false', 'client/server', 'input/output']);

/** A path or glob as written → what it matches. A folder (`web/components`, `vendor/`) means its files. */
export function normalizeGlob(raw: string): string[] {
  let p = raw.trim().replace(/\\/g, '/');
  if (p.startsWith('./')) p = p.slice(2);
  else if (p.startsWith('/') && p.length > 1) p = p.slice(1);
  if (p.endsWith('/')) return [`${p.replace(/\/+$/, '')}/**`];
  if (GLOB_CHARS.test(p)) return [p];
  const last = p.slice(p.lastIndexOf('/') + 1);
  // `src/db.ts` is a file; `web/components` or `scripts` may be a folder: both readings match (the file
  // reading costs nothing when there is no such file).
  return last.slice(1).includes('.') ? [p] : [p, `${p}/**`];
}

/** Code-span contents that can be a path: no spaces, quotes, operators or call syntax. */
function pathLikeCode(s: string): boolean {
  if (!s || /\s/.test(s) || /["'=;<>|&]/.test(s) || s.includes('://')) return false;
  if (/[()]/.test(s) && !s.includes('/')) return false;
  return /^[\w.*?/{}[\]!,@+$()~-]+$/.test(s) && !/^[.:,-]+$/.test(s) && !s.endsWith(':');
}

/** A bare (unquoted) token reads as a path only when nothing else would write it: a wildcard, a slash, an extension. */
export function pathLikeBare(tok: string): boolean {
  if (!tok || tok.includes('://') || NOT_PATHS.has(tok.toLowerCase())) return false;
  if (!/^[\w.*?/{}[\]!,@+~-]+$/.test(tok)) return false;
  // `*_spec.rb`, `services/**`, `**`: a wildcard plus a slash or an extension. `*all*` is emphasis, not a glob.
  if (GLOB_CHARS.test(tok)) return tok === '**' || (/[\w*]/.test(tok) && (tok.includes('/') || /\.[\w{*]+\}?$/.test(tok)));
  if (tok.includes('/')) return /^[\w.@+~-]*(\/[\w.@+~-]+)+\/?$|^[\w.@+~-]+\/$/.test(tok) && !/^\d+\/\d+$/.test(tok);
  // package.json, .eslintrc.json, Containerfile-free names need backticks; require a base of 2+ characters
  // so "e.g." and "i.e." stay words.
  return /^[\w-]{2,}(\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(tok) && !/^\d/.test(tok);
}

/** Path-like content for scope phrases inside rules and sentences (`in `web/components``). */
export function pathLike(text: string, code: boolean): boolean {
  if (code) return pathLikeCode(text) && (text.includes('/') || GLOB_CHARS.test(text) || /\.[A-Za-z]\w{0,5}$/.test(text));
  return pathLikeBare(text);
}

const LANG_EXT: Record<string, string[]> = {
  typescript: ['*.ts', '*.tsx'], ts: ['*.ts', '*.tsx'], tsx: ['*.tsx'], javascript: ['*.js', '*.jsx', '*.mjs', '*.cjs'], js: ['*.js', '*.jsx', '*.mjs', '*.cjs'],
  python: ['*.py'], go: ['*.go'], golang: ['*.go'], rust: ['*.rs'], ruby: ['*.rb'], java: ['*.java'], kotlin: ['*.kt', '*.kts'],
  yaml: ['*.yaml', '*.yml'], json: ['*.json'], sql: ['*.sql'], shell: ['*.sh'], bash: ['*.sh'], terraform: ['*.tf'],
  php: ['*.php'], swift: ['*.swift'], scala: ['*.scala'], 'c#': ['*.cs'], csharp: ['*.cs'], markdown: ['*.md'], css: ['*.css', '*.scss'],
  html: ['*.html', '*.htm'], vue: ['*.vue'], svelte: ['*.svelte'], proto: ['*.proto'], protobuf: ['*.proto'], dockerfile: ['Dockerfile', '*.Dockerfile'],
};
const LANG_NOUN = new Set(['files', 'file', 'code', 'sources', 'source', 'modules', 'module', 'packages', 'manifests', 'scripts', 'tests', 'specs']);
const FILLER = new Set([
  'and', 'or', 'plus', 'also', 'only', 'files', 'file', 'folder', 'folders', 'directory', 'directories', 'dir', 'dirs', 'code',
  'source', 'sources', 'in', 'under', 'within', 'inside', 'beneath', 'all', 'any', 'every', 'the', 'of', 'to', 'matching', 'that',
  'match', 'paths', 'path', 'its', 'their', 'subfolders', 'subdirectories', 'recursively', 'tree', 'contents', 'as', 'well',
  'everything', 'globs', 'glob', 'pattern', 'patterns', 'named', 'called', 'below', 'for', '&', '+', 'is', 'are', 'this', 'these',
  'rule', 'rules', 'applies', 'apply', 'scope', 'scoped', 'from', 'at', 'on', 'which', 'live', 'lives', 'located', 'there', 'them',
  'anywhere', 'repository', 'repo', 'and/or', 'each', 'just', 'touching', 'checked', 'covered', 'enforced', 'affected', 'considered',
]);
const EVERYWHERE = /\b(everything|everywhere|all files|all code|whole (repo|repository|codebase|project)|entire (repo|repository|codebase|project)|the (repo|repository|codebase) as a whole|global(ly)?)\b/i;

/** Lead phrases. `strong` leads ("Scope:", "Applies to:") declare a scope even when the rest cannot be read. */
const INCLUDE_LEAD: [RegExp, boolean][] = [
  [/^(?:gilt\s+(?:nur\s+)?für|geltungsbereich|anwendungsbereich|s['’]applique\s+à|port[ée]e|périmètre|(?:se\s+)?aplica\s+(?:a|en)|alcance|ámbito|aplica-se\s+a|escopo|適用範囲|適用対象|対象)\s*[:：]/i, true],
  [/^(?:(?:this|these|the|all|our|such)\s+)?(?:(?:rules?|invariants?|checks?|guards?|guardrails?|constraints?|requirements?)\s+(?:below\s+|above\s+|here\s+|in this (?:section|list)\s+)?)?(?:only\s+)?(?:appl(?:y|ies)|(?:is|are)\s+(?:applied|enforced|checked))\s+(?:only\s+)?(?:to|in|under|within|for|on)\b(\s*:)?/i, false],
  [/^(?:scopes?|paths?|files?|globs?|includes?|included|in[ -]scope|applies[ -]to|applies[ -]only[ -]to|only[ -]in|only[ -]under|applicable[ -]to|(?:included|target|affected|covered)\s+(?:paths?|files?|folders?|directories))\s*:/i, true],
  [/^(?:scoped|limited|restricted|confined|applicable(?:\s+only)?)\s+to\b(\s*:)?/i, false],
  [/^only\s+(?:(?:files?|code|paths?)\s+)?(?:in|under|within|for|inside|matching)\b/i, false],
  // "This decision applies to `services/`", "Everything in this section applies only to …"
  [/^(?!.*\b(?:not|never|no)\b|.*n't\b)(?:[\w'’]+\s+){1,6}?(?:only\s+)?appl(?:y|ies)\s+(?:only\s+)?to\b(\s*:)?/i, false],
];
// The same strong leads in a few other languages ADRs are written in (German, French, Spanish, Portuguese, Japanese).
const EXCLUDE_LEAD_INTL = /^(?:ausgenommen|ausnahmen?|gilt\s+nicht\s+für|sauf|exclus|exclusions?|excepto|excluye|excluido|exceto|除外|対象外)\s*[:：]/i;

const EXCLUDE_LEAD: [RegExp, boolean][] = [
  [EXCLUDE_LEAD_INTL, true],
  [/^(?:excludes?|excluded|excluding|except|exempt|exemptions?|not[ -]in|ignored?|ignores|skip|out[ -]of[ -]scope|does[ -]not[ -]apply[ -]to|not[ -]applicable[ -]to|(?:excluded|ignored|exempt)\s+(?:paths?|files?|folders?|directories))\s*:/i, true],
  [/^(?:(?:it|this(?:\s+rule)?|these(?:\s+rules)?|the\s+rules?|rules?)\s+)?(?:does|do)\s*(?:not|n't)\s+apply\s+(?:to|in|under|within|for)\b/i, false],
  [/^(?:(?:these|the)\s+rules?\s+)?(?:(?:is|are)\s+)?not\s+(?:applied|enforced|checked)\s+(?:to|in|under|for)\b/i, false],
  [/^(?:excludes?|excluding|except(?:\s+(?:for|in|under))?|not\s+(?:in|under|for)|not\s+applicable\s+to|never\s+in|ignores?)\b/i, false],
];

/** Drops emphasis and blockquote markers around the lead: `**Applies to:**` → `Applies to:`. */
function unwrap(line: string): string {
  let s = line.trim().replace(/^(>\s*)+/, '');
  const m = /^(\*\*|__|\*|_)([A-Za-z][^*_`]*?)\1(.*)$/.exec(s);
  if (m) s = `${m[2]}${m[3]}`;
  return s.trim();
}

/**
 * Reads a line (or a list item's text) as a scope declaration. Undefined = not a scope line (prose).
 * `keyed` is for list items and modifiers whose key already said "this is a scope" (`- scope: …`).
 */
export function readScopeLine(line: string): (ScopeRead & { polarity: 'include' | 'exclude'; strong: boolean }) | undefined {
  const s = unwrap(line);
  // "`services/gen/**` is excluded." / "Generated code in `gen/` is exempt."
  const tail = /\s+(?:is|are)\s+(?:also\s+)?(?:excluded|exempt(?:ed)?|ignored|skipped|not\s+checked|out\s+of\s+scope)(?:\s+from\s+(?:these|the|this)\s+rules?)?\s*[.!]?$/i.exec(s);
  if (tail) {
    const read = readScopeValue(s.slice(0, tail.index), 'include', false);
    if (read.hadCode && read.include.length && read.unknownWords <= 1) return { polarity: 'exclude', strong: false, include: [], exclude: read.include };
    return undefined;
  }
  for (const [leads, polarity] of [[EXCLUDE_LEAD, 'exclude'], [INCLUDE_LEAD, 'include']] as const) {
    for (const [re, strongLead] of leads) {
      const m = re.exec(s);
      if (!m) continue;
      const strong = strongLead || /[:：]\s*$/.test(m[0]);
      const rest = s.slice(m[0].length).replace(/^\s*[:：]?\s*/, '');
      if (!rest.replace(/[.:\s]/g, '')) return strong ? { polarity, strong, include: [], exclude: [], awaitsList: true } : undefined;
      const read = readScopeValue(rest, polarity, strong);
      // A long sentence after the lead ("Scope: this ADR covers how the team …") is prose, not a scope list.
      if (read.unknownWords > 5) return undefined;
      const found = read.include.length + read.exclude.length > 0;
      if (!found) return strong ? { polarity, strong, ...read, unclear: `scope '${rest}' names no path or glob` } : undefined;
      // A weak lead ("Only in", "Applies to") followed by prose is a sentence, not a scope: it needs a code span
      // and at most one word the reader does not know.
      if (read.unclear && !strong && (!read.hadCode || read.unknownWords > 1)) return undefined;
      return { polarity, strong, include: read.include, exclude: read.exclude, unclear: read.unclear };
    }
  }
  return undefined;
}

/** Reads the value of a declared scope (after "Applies to:", `- scope:`, `in:` …). */
export function readScopeValue(value: string, polarity: 'include' | 'exclude', keyed = true): ScopeRead & { hadCode: boolean; unknownWords: number } {
  // `src\**\*.ts` from an ADR written on Windows: a backslash between path characters is a separator (userPath.ts).
  value = value.replace(/(?<=[\w*.}\]])\\(?=[\w*.{[])/g, '/');
  const out: ScopeRead & { hadCode: boolean; unknownWords: number } = { include: [], exclude: [], hadCode: false, unknownWords: 0 };
  // "services/** except services/legacy/**": the part after the exception word flips polarity.
  const parts = splitException(value);
  const unknown: string[] = [];
  parts.forEach((part, pi) => {
    const pol = pi === 0 ? polarity : polarity === 'include' ? 'exclude' : 'include';
    if (pi > 0 && polarity === 'exclude') {
      unknown.push(`an exception inside an exclusion ('${part.trim()}')`);
      return;
    }
    const units = readUnits(part, unknown, out, keyed);
    (pol === 'include' ? out.include : out.exclude).push(...units);
  });
  out.unknownWords = unknown.length;
  if (unknown.length) out.unclear = `not understood in scope '${value.trim()}': ${unknown.join(', ')}`;
  return out;
}

function splitException(value: string): string[] {
  return splitOutsideCode(value, /\b(?:except(?:\s+(?:for|in|under))?|but\s+not(?:\s+(?:in|under))?|excluding|other\s+than|apart\s+from|without)\b/i).filter((p) => p.trim());
}

function readUnits(part: string, unknown: string[], flags: { hadCode: boolean }, keyed: boolean): ScopeUnit[] {
  const paths: ScopeUnit[] = [];
  const exts: { word: string; globs: string[] }[] = [];
  const segs = segments(part);
  const hasFilesWord = /\bfiles?\b/i.test(segs.filter((s) => !s.code).map((s) => s.text).join(' '));
  let everywhere = false;
  const bare: string[] = [];
  let fillers = 0;
  const unknownBefore = unknown.length;
  for (const seg of segs) {
    if (seg.code) {
      const t = seg.text.trim();
      if (/^\.[A-Za-z0-9]{1,6}$/.test(t) && hasFilesWord) paths.push({ written: t, globs: [`*${t}`] });
      else if (pathLikeCode(t)) paths.push({ written: t, globs: normalizeGlob(t) });
      else unknown.push(`\`${t}\``);
      flags.hadCode = true;
      continue;
    }
    if (EVERYWHERE.test(seg.text)) everywhere = true;
    const toks = tokens(seg.text);
    toks.forEach((tok, i) => {
      const low = tok.toLowerCase();
      const lang = LANG_EXT[low];
      if (lang && LANG_NOUN.has((toks[i + 1] ?? '').toLowerCase())) {
        exts.push({ word: tok, globs: lang });
        return;
      }
      if (FILLER.has(low) || EVERYWHERE.test(low)) {
        if (!/^(and|or|&|\+|plus)$/.test(low)) fillers++;
        return;
      }
      if (/^(whole|entire|global|globally|project|codebase)$/.test(low) && everywhere) return;
      if (pathLikeBare(tok)) {
        paths.push({ written: tok, globs: normalizeGlob(tok) });
        return;
      }
      if (keyed && /^[\w.@+~-]+$/.test(tok)) {
        // After a key (`in: scripts`, `Scope: services`) a plain name is a file or folder name.
        bare.push(tok);
        paths.push({ written: tok, globs: normalizeGlob(tok) });
        return;
      }
      unknown.push(`'${tok}'`);
    });
  }
  if (bare.length && (fillers > 0 || unknown.length > unknownBefore || bare.length > 3 || /["“”]/.test(part))) {
    // Plain names only stand for folders in a bare list (`in: scripts`, `Scope: services, lib`); words mixed
    // with prose ("the billing code") are prose.
    for (const b of bare) unknown.push(`'${b}'`);
    for (let i = paths.length - 1; i >= 0; i--) if (bare.includes(paths[i].written) && !pathLikeBare(paths[i].written)) paths.splice(i, 1);
  }
  if (!paths.length && !exts.length) return everywhere ? [{ written: 'everything', globs: ['**'] }] : [];
  if (!exts.length) return paths;
  const folders = paths.filter((p) => p.globs.some((g) => g.endsWith('/**')));
  const others = paths.filter((p) => !folders.includes(p));
  const extGlobs = exts.flatMap((e) => e.globs);
  const words = exts.map((e) => e.word).join('/');
  if (!folders.length) return [...others, { written: `${words} files`, globs: extGlobs }];
  // "TypeScript files under `services/`": both conditions, so the folder's files of those extensions.
  const crossed = folders.map((f) => {
    const base = f.globs.find((g) => g.endsWith('/**'))!;
    return { written: `${words} files in ${f.written}`, globs: extGlobs.map((e) => `${base}/${e}`) };
  });
  return [...others, ...crossed];
}

/** Words of prose, with edge punctuation removed (globs keep their `*`, `/`, `{a,b}`). */
export function tokens(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  const flush = () => {
    const t = cur.replace(/^[("'“‘]+/, '').replace(/[)"'”’.:;!]+$/, '');
    if (t) out.push(t);
    cur = '';
  };
  for (const c of text) {
    if (c === '{') depth++;
    if (c === '}') depth = Math.max(0, depth - 1);
    if (/\s/.test(c) || (c === ',' && depth === 0)) flush();
    else cur += c;
  }
  flush();
  return out;
}
