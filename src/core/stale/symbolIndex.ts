import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexDb } from '../index/db';
import { blobId } from './blob';
import { definitionsOf, hasGrammar, MAX_SOURCE_BYTES, type Definition } from './definitions';
import { filesWithWords, type TrackedFile } from './gitQueries';
import { readDefs, writeDefs } from './store';

/**
 * Where names are defined in the repository, resolved lazily: only names notes mention are looked up, only tracked
 * files whose text holds one of them as a word are parsed (`git grep -l -w`), and parses are cached by git blob id
 * in the index, so a rescan re-parses only files whose content changed.
 */

export interface Located extends Definition {
  path: string;
}

/** Grammar-backed file names for git grep's pathspec (the languages definitions.ts can parse). */
export const SOURCE_GLOBS = ['*.ts', '*.tsx', '*.mts', '*.cts', '*.js', '*.jsx', '*.mjs', '*.cjs', '*.py', '*.pyi', '*.go', '*.rs', '*.c', '*.h', '*.cc', '*.cpp', '*.cxx', '*.hpp', '*.hh', '*.hxx', '*.java', '*.cs'];
/** git grep gets the names in batches: a command line has limits, and hundreds of names are rare. */
const WORDS_PER_GREP = 400;

export class DefinitionCache {
  private readonly fresh = new Map<string, Definition[]>();
  /** Parsed in this run (not yet stored). */
  private readonly parsed = new Map<string, Definition[]>();

  /** Blob ids with a stored parse, read once: a miss then costs no query (each query takes the index lock). */
  private storedBlobs?: Set<string>;

  constructor(private readonly idx: IndexDb) {}

  private stored(): Set<string> {
    if (!this.storedBlobs) {
      try {
        this.storedBlobs = new Set(this.idx.all('SELECT blob FROM stale_defs').map((r) => String(r.blob)));
      } catch (err) {
        if (!/no such table/i.test((err as Error).message)) throw err;
        this.storedBlobs = new Set();
      }
    }
    return this.storedBlobs;
  }

  /** Definitions of one file version (content + its blob id), parsing only on a cache miss. */
  async of(path: string, content: string, blob = blobId(content)): Promise<Definition[]> {
    const hit = this.fresh.get(blob) ?? (this.stored().has(blob) ? readDefs(this.idx, [blob]).get(blob) : undefined);
    if (hit) return hit;
    const defs = await definitionsOf(path, content);
    this.fresh.set(blob, defs);
    this.parsed.set(blob, defs);
    return defs;
  }

  /** Preloads stored parses for many blobs with one query. */
  preload(blobs: string[]): void {
    for (const [b, d] of readDefs(this.idx, blobs.filter((x) => !this.fresh.has(x)))) this.fresh.set(b, d);
  }

  /** New parses go to the index (inside the caller's write transaction). */
  flush(): void {
    writeDefs(this.idx, this.parsed);
    // A long-lived host keeps this cache from one update to the next: what it wrote is stored now.
    if (this.storedBlobs) for (const b of this.parsed.keys()) this.storedBlobs.add(b);
    this.parsed.clear();
  }
}

/** A tracked regular file's working-tree text, or undefined (missing, a symlink, too large, binary). */
export function readWorkingText(top: string, path: string): string | undefined {
  const abs = join(top, path);
  try {
    const st = lstatSync(abs);
    if (!st.isFile() || st.size > MAX_SOURCE_BYTES) return undefined;
    const buf = readFileSync(abs);
    if (buf.subarray(0, 8000).includes(0)) return undefined;
    return buf.toString('utf8');
  } catch {
    return undefined;
  }
}

/** name → every definition of it in the working tree's tracked source files. */
export async function locateNames(top: string, names: Set<string>, tracked: Map<string, TrackedFile>, cache: DefinitionCache, signal?: AbortSignal): Promise<Map<string, Located[]>> {
  const out = new Map<string, Located[]>();
  const words = [...names];
  const files = new Set<string>();
  for (let i = 0; i < words.length; i += WORDS_PER_GREP) {
    for (const f of await filesWithWords(top, words.slice(i, i + WORDS_PER_GREP), SOURCE_GLOBS, signal)) files.add(f);
  }
  const candidates = [...files].filter((f) => hasGrammar(f) && tracked.get(f)?.mode.startsWith('100'));
  cache.preload(candidates.map((f) => tracked.get(f)!.blob));
  for (const f of candidates) {
    const text = readWorkingText(top, f);
    if (text === undefined) continue;
    // The index's blob id is right for a clean file; an edited one is hashed (its parse is keyed by its content).
    const blob = blobId(text);
    for (const d of await cache.of(f, text, blob)) {
      if (!names.has(d.name)) continue;
      let list = out.get(d.name);
      if (!list) out.set(d.name, (list = []));
      list.push({ ...d, path: f });
    }
  }
  return out;
}

/**
 * The one definition a written name means, or the reason it has none: several definitions in one file under the
 * same container (TypeScript overloads, a getter and setter) are one symbol spanning all of them.
 */
export function pickDefinition(found: Located[] | undefined, container: string | undefined, path: string | undefined): { def?: Located; candidates: string[] } {
  // A constructor named like its class (Java, C#) is part of the class, not a second definition of the name.
  const matching = (found ?? []).filter((d) => d.container !== d.name && (container === undefined || d.container === container) && (path === undefined || d.path === path));
  const groups = new Map<string, Located>();
  for (const d of matching) {
    const key = `${d.path}\0${d.container ?? ''}`;
    const g = groups.get(key);
    if (!g) groups.set(key, { ...d });
    else {
      g.startLine = Math.min(g.startLine, d.startLine);
      g.endLine = Math.max(g.endLine, d.endLine);
    }
  }
  const all = [...groups.values()];
  return all.length === 1 ? { def: all[0], candidates: [all[0].path] } : { candidates: all.map((d) => (d.container ? `${d.path} (${d.container})` : d.path)) };
}
