import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import type { NoteStat } from '../vault/noteFiles';
import { basename, dirname, join } from 'node:path';
import type { AdrRules } from './types';
import { digest } from './digest';
import { ignoreInGit, replaceFile } from './cacheFiles';

/**
 * The compiled-rule cache of one-shot processes (the git hook, the CLI): `.k0maru/cache/guard-rules.json`, beside
 * the index and git-ignored like it (`cache/` in `.k0maru/.gitignore`, src/core/vault/init.ts; the folder also
 * ignores itself). Reading and parsing every note for rules (explicit and inferred from prose decisions) was most
 * of a hook run's CPU on a 500-note vault (bench/hookStart.ts: cold ~3.8× a bare `node -e 0`, warm ~2×); with this
 * file an unchanged note costs one stat.
 *
 * It only ever saves time; it never decides what applies. An entry is used only when everything it was keyed by
 * is unchanged:
 *  - the file's key: path, mtime, ctime, size and inode (statSync, so a symlinked note is keyed by its target).
 *    ctime cannot be set from user space: an edit that restores the old mtime (`touch -d`, an editor keeping
 *    mtimes) still changes it. An editor's save-by-rename changes the inode;
 *  - the cache's key: PARSER_VERSION, the code that parses (codeIdentity below — an upgrade that changes the
 *    parser without bumping PARSER_VERSION still misses), the note sources (roots and prefixes) and the vault's
 *    `guard` config. Parsing reads nothing else of the config today: scopes,
 *    settings and statuses come from the note itself, and the inferred-rule policy is applied after loading.
 *
 * The known blind spot of stat-keyed caches is an edit inside the same timestamp tick that keeps the size: a
 * note whose mtime or ctime is less than RACY_MS before the moment the load began is parsed but never written to
 * the cache (git's "racily clean" rule), so any later edit lands on a different timestamp. No content hash
 * (the scanner's third tier, xxh3) is used here: reading and hashing every note is most of what the cache saves.
 *
 * A missing, corrupt, foreign or oversized file, or one from another version or build, is ignored and rewritten.
 * The file, and the cache folder, are never followed if they are symlinks (opened with O_NOFOLLOW; a symlinked
 * folder disables the cache). Every entry is checked for shape before use, and a cloned repository cannot ship
 * matching entries: no other checkout has the same inodes and ctimes.
 */

/** Window in which a timestamp is too fresh to trust: covers 2 s timestamp granularity (FAT, some network FS). */
export const RACY_MS = 2_000;
/** Above this the file is neither read nor written: a vault big enough for that parses every time. */
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;
export const RULE_CACHE_FILE = 'guard-rules.json';
const FORMAT = 'k0maru-guard-rules';

declare const __K0MARU_BUNDLED__: boolean | undefined;

interface Entry {
  /** mtimeMs, ctimeMs, size, ino */
  k: [number, number, number, number];
  /** The note's rules, or null for a note that is no rule source. */
  p: AdrRules | null;
}

interface FileShape {
  format: string;
  key: string;
  entries: Record<string, Entry>;
}

export interface RuleCacheFile {
  /** The cached rules of `rel` when its stat still matches (null = no rule source); undefined = parse it. */
  lookup(rel: string, st: NoteStat): AdrRules | null | undefined;
  /** Remembers a fresh parse (skipped when the note's timestamps are too fresh to trust). */
  record(rel: string, st: NoteStat, adr: AdrRules | null): void;
  /** Writes the file when anything changed; `present` = every note listed this time (others are dropped). */
  save(present: Set<string>): void;
  /** For tests and the bench. */
  readonly status: 'loaded' | 'new' | 'ignored' | 'disabled';
}

function statKey(st: NoteStat): [number, number, number, number] {
  return [st.mtimeMs, st.ctimeMs, st.size, st.ino];
}

let codeIdCache: string | undefined;

/** esbuild's lazily loaded chunks are named by a hash of their content (esbuild.mjs: `lazy-[name]-[hash]`). */
const HASHED_CHUNK = /^lazy-.+-[A-Z0-9]{8}\.m?js$/;

/**
 * Identifies the parser's code. In the CLI/MCP bundle this file sits in a content-hashed chunk, and esbuild's
 * chunk hash covers the chunks it imports (statically or by `import()`, transitively: checked by changing one
 * message in inferred.ts, which renamed this chunk too), so the chunk's own name identifies every line of code
 * parsing runs. A bundle without hashed names (the editor's extension*.js) is identified by its mtime and size;
 * from sources (tsx) every file under src/core is. A build that changes the parser therefore misses the cache
 * once, whether or not PARSER_VERSION was bumped.
 */
export function codeIdentity(): string {
  if (codeIdCache !== undefined) return codeIdCache;
  const bundled = typeof __K0MARU_BUNDLED__ !== 'undefined' && __K0MARU_BUNDLED__;
  const parts: string[] = [];
  const visit = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      parts.push(`${dir}:?`);
      return;
    }
    for (const name of names) {
      const p = join(dir, name);
      if (/\.(?:mjs|cjs|js|ts)$/.test(name)) {
        try {
          const st = statSync(p);
          parts.push(`${p}:${st.mtimeMs}:${st.size}`);
        } catch {
          parts.push(`${p}:?`);
        }
      } else if (!name.includes('.')) {
        try {
          if (lstatSync(p).isDirectory()) visit(p);
        } catch {
          // gone while listing
        }
      }
    }
  };
  if (bundled && HASHED_CHUNK.test(basename(__filename))) parts.push(basename(__filename));
  else if (bundled) {
    try {
      const st = statSync(__filename);
      parts.push(`${__filename}:${st.mtimeMs}:${st.size}`);
    } catch {
      parts.push(`${__filename}:?`);
    }
  } else visit(dirname(__dirname));
  codeIdCache = digest(parts.join('\n'));
  return codeIdCache;
}

/**
 * Whether a load without a database uses the file by default: yes in the CLI bundle (content-hashed chunks) and
 * from sources; no in the editor's bundle (extension*.js). The editor is long-lived and keeps ruleStore's memo in
 * memory, and its build has another code identity than the CLI's: sharing one file, each would throw away the
 * other's entries, and the next commit would parse every note again.
 */
export function fileCacheByDefault(): boolean {
  const bundled = typeof __K0MARU_BUNDLED__ !== 'undefined' && __K0MARU_BUNDLED__;
  return !bundled || HASHED_CHUNK.test(basename(__filename));
}

function isEntry(e: unknown, rel: string): e is Entry {
  if (!e || typeof e !== 'object') return false;
  const { k, p } = e as Entry;
  if (!Array.isArray(k) || k.length !== 4 || !k.every((n) => typeof n === 'number')) return false;
  if (p === null) return true;
  return (
    !!p && typeof p === 'object' && p.adrPath === rel && typeof p.adrId === 'string' && typeof p.title === 'string' && typeof p.active === 'boolean' &&
    Array.isArray(p.rules) && Array.isArray(p.diagnostics)
  );
}

/** Reads the file without following a symlink and without blocking on a FIFO; undefined when unusable. */
function readCacheText(path: string): string | undefined {
  let fd: number;
  try {
    // Windows has no O_NOFOLLOW: there the link is refused by lstat first.
    if (constants.O_NOFOLLOW === undefined && lstatSync(path).isSymbolicLink()) return undefined;
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined; // missing, a symlink (ELOOP), unreadable
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_CACHE_BYTES) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) {
      const got = readSync(fd, buf, n, st.size - n, n);
      if (got === 0) break;
      n += got;
    }
    return buf.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface OpenRuleCacheOptions {
  /** What the cache is valid for besides the notes' own stats (parser version, sources, config). */
  key: string;
  /** The moment the load began (ms since the epoch): timestamps after `now - RACY_MS` are not cached. */
  now?: number;
}

/** Opens `<k0Dir>/cache/guard-rules.json` for one load. Never throws. */
export function openRuleCacheFile(k0Dir: string, opts: OpenRuleCacheOptions): RuleCacheFile {
  const dir = join(k0Dir, 'cache');
  const path = join(dir, RULE_CACHE_FILE);
  const key = `${opts.key}\0${codeIdentity()}`;
  const trustBefore = (opts.now ?? Date.now()) - RACY_MS;
  let status: RuleCacheFile['status'] = 'new';
  try {
    // A symlinked cache folder could send our writes anywhere: then there is no cache at all.
    if (!lstatSync(dir).isDirectory()) status = 'disabled';
  } catch {
    // no folder yet: created on save
  }
  let entries: Record<string, Entry> = {};
  if (status !== 'disabled') {
    const text = readCacheText(path);
    if (text !== undefined) {
      try {
        const parsed = JSON.parse(text) as FileShape;
        if (parsed && parsed.format === FORMAT && parsed.key === key && parsed.entries && typeof parsed.entries === 'object' && !Array.isArray(parsed.entries)) {
          entries = parsed.entries; // read with Object.hasOwn only: a `__proto__` key is plain data
          status = 'loaded';
        } else status = 'ignored';
      } catch {
        status = 'ignored'; // corrupt: rewritten below
      }
    }
  }
  let dirty = status === 'ignored';
  return {
    get status() {
      return status;
    },
    lookup(rel, st) {
      if (status === 'disabled') return undefined;
      if (!Object.hasOwn(entries, rel)) return undefined;
      const e = entries[rel];
      const k = statKey(st);
      if (!isEntry(e, rel) || e.k.some((v, i) => v !== k[i])) {
        delete entries[rel];
        dirty = true;
        return undefined;
      }
      return e.p;
    },
    record(rel, st, adr) {
      if (status === 'disabled') return;
      if (Math.max(st.mtimeMs, st.ctimeMs) > trustBefore) {
        if (Object.hasOwn(entries, rel)) {
          delete entries[rel];
          dirty = true;
        }
        return;
      }
      entries[rel] = { k: statKey(st), p: adr };
      dirty = true;
    },
    save(present) {
      if (status === 'disabled') return;
      for (const rel of Object.keys(entries)) {
        if (!present.has(rel)) {
          delete entries[rel];
          dirty = true;
        }
      }
      if (!dirty) return;
      try {
        mkdirSync(dir, { recursive: true });
        if (!lstatSync(dir).isDirectory()) return;
        ignoreInGit(dir);
        const text = JSON.stringify({ format: FORMAT, key, entries } satisfies FileShape);
        if (text.length > MAX_CACHE_BYTES) return; // would be ignored when read: a vault that big parses
        replaceFile(path, text);
        dirty = false;
      } catch {
        // A read-only checkout, a full disk: the next run parses again. Never fails a commit.
      }
    },
  };
}
