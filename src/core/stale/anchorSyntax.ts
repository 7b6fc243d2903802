import { posix } from 'node:path';

/**
 * How one piece of note text names repository code, before the repository is asked whether it exists:
 * `src/db/pool.go`, `payments/webhook.ts:42`, `src/a.ts:10-20`, `src/a.ts#L10-L20`, `src/a.ts#acquireLock`
 * (a symbol pinned to its file), `acquireLock`, `acquireLock()`, `Pool.acquire`.
 */
export type AnchorRef =
  | { kind: 'path'; path: string; startLine?: number; endLine?: number }
  | { kind: 'symbol'; name: string; container?: string; path?: string };

const LOCATION = /^(.+?)(?::(\d+)(?:-(\d+))?|#L(\d+)(?:-L?(\d+))?)$/;
const PINNED_SYMBOL = /^(.+?)#([A-Za-z_$][\w$]*)(?:\(\))?$/;
const SYMBOL = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*$/;
const EXTENSION = /\.[A-Za-z0-9_+-]{1,10}$/;
/** Caps what a single written reference may be: longer strings are prose or data, not a path. */
const MAX_REF = 300;

/**
 * A repository-relative path as written, normalised ('/' separators, no `./`), or undefined when it is not one:
 * absolute, a URL, leaving the repository (`..`), holding spaces or glob characters.
 */
export function normalisePath(raw: string, fromDir = ''): string | undefined {
  if (!raw || raw.length > MAX_REF || /[\s*?<>|"'`\0]/.test(raw) || /^[a-z][a-z0-9+.-]*:/i.test(raw)) return undefined;
  const p = raw.replace(/\\/g, '/');
  if (p.startsWith('/') || p.startsWith('~')) return undefined;
  const joined = posix.normalize(posix.join(fromDir, p));
  if (joined === '.' || joined.startsWith('../') || joined === '..' || joined.endsWith('/')) return undefined;
  return joined;
}

function looksLikePath(s: string): boolean {
  return s.includes('/') || EXTENSION.test(s);
}

/**
 * Plain lowercase words (`cache`, `main`) are prose in backticks more often than a name: they count as a symbol
 * only when written as a call (`cache()`). Mixed case, an underscore, a digit or a qualifier (`Pool.acquire`) make
 * a name code-like enough.
 */
function codeLike(name: string, called: boolean): boolean {
  if (called) return name.length >= 2;
  if (name.length < 3) return false;
  return /[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|_|\d|[.#]|::|^[A-Z][A-Z0-9_]{2,}$/.test(name) || /^[A-Z][a-z]{2,}/.test(name);
}

/** Reads one inline-code span, link target or `anchors:` entry. `fromDir`: the note's folder, for relative link targets. */
export function parseAnchorRef(raw: string, opts: { link?: boolean; fromDir?: string; explicit?: boolean } = {}): AnchorRef[] {
  const text = raw.trim();
  if (!text || text.length > MAX_REF) return [];
  const loc = LOCATION.exec(text);
  if (loc && looksLikePath(loc[1])) {
    const start = Number(loc[2] ?? loc[4]);
    const end = Number(loc[3] ?? loc[5] ?? start);
    if (!(start >= 1) || !(end >= start) || end - start > 100_000) return [];
    return pathRefs(loc[1], opts).map((path) => ({ kind: 'path' as const, path, startLine: start, endLine: end }));
  }
  const pinned = PINNED_SYMBOL.exec(text);
  if (pinned && looksLikePath(pinned[1])) {
    return pathRefs(pinned[1], opts).map((path) => ({ kind: 'symbol' as const, name: pinned[2], path }));
  }
  if (looksLikePath(text) && !SYMBOL.test(text.replace(/\(\)$/, ''))) return pathRefs(text, opts).map((path) => ({ kind: 'path' as const, path }));
  const called = text.endsWith('()');
  const bare = called ? text.slice(0, -2) : text;
  if (!opts.link && SYMBOL.test(bare)) {
    const parts = bare.split(/\.|::|#/);
    const name = parts[parts.length - 1];
    const container = parts.length > 1 ? parts[parts.length - 2] : undefined;
    const out: AnchorRef[] = [];
    // `config.ts` is both a file name and a dotted name: try it as a path too (the repository decides).
    if (looksLikePath(bare)) for (const path of pathRefs(bare, opts)) out.push({ kind: 'path', path });
    if ((opts.explicit || codeLike(bare, called)) && !(container === undefined && out.length)) out.push({ kind: 'symbol', name, container });
    return out;
  }
  return [];
}

/** Link targets are relative to the note (GitHub renders them so); inline code is relative to the repository top. */
function pathRefs(raw: string, opts: { link?: boolean; fromDir?: string }): string[] {
  const cleaned = raw.replace(/^<|>$/g, '');
  const out: string[] = [];
  if (opts.link && opts.fromDir !== undefined) {
    let decoded = cleaned;
    try {
      decoded = decodeURI(cleaned);
    } catch {
      /* keep as written */
    }
    const rel = normalisePath(decoded, opts.fromDir);
    if (rel) out.push(rel);
    if (!decoded.startsWith('.')) {
      const top = normalisePath(decoded);
      if (top && top !== rel) out.push(top);
    }
    return out;
  }
  const top = normalisePath(cleaned.replace(/^\.\//, ''));
  return top ? [top] : [];
}
