import { realpathSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isK0Error, K0Error } from '../errors';
import { safeJoin, type VaultPaths } from '../vault/paths';
import { isInsidePath, listNoteFiles } from '../vault/noteFiles';
import { noteSources } from '../vault/noteSources';
import { readRegularFile } from '../vault/regularFile';
import { parseFrontmatter } from '../vault/frontmatter';
import { slugify } from '../conventions/slug';

/**
 * Finds existing notes from the references an agent gives (`supersedes`, `related_notes`) the cheap way:
 * one directory walk (names only), then file-name matches; note heads (first 4 KB) are read only when a
 * reference matches no file name (a title), so a flush on a 500-note vault does not read 500 notes.
 */

const HEAD_BYTES = 4096;

export class VaultListing {
  /** Vault-relative paths of every Markdown note, `/`-separated. */
  readonly files: string[] = [];
  private byStem?: Map<string, string[]>;

  /**
   * The vault's notes by the one rule of src/core/vault/noteFiles.ts (names only: no stat per regular file).
   * Pass the project's boundary (`VaultListing.of(paths)`): a symlinked note pointing elsewhere in the project is
   * listed, so a reference to it gets a clear PATH_OUTSIDE_VAULT from checkInside instead of NOTE_NOT_FOUND.
   */
  constructor(
    readonly notesRoot: string,
    opts: { boundary?: string; exclude?: string[] } = {},
  ) {
    for (const f of listNoteFiles(notesRoot, opts).files) this.files.push(f.rel);
  }

  static of(paths: VaultPaths): VaultListing {
    const vault = noteSources(paths)[0];
    return new VaultListing(paths.notesRoot, { boundary: vault.boundary, exclude: vault.exclude });
  }

  /** Lower-cased file name without `.md` → paths, shortest path first (Obsidian's tie-break). */
  stems(): Map<string, string[]> {
    if (!this.byStem) {
      this.byStem = new Map();
      for (const f of this.files) {
        const key = stemOf(f).toLowerCase();
        const list = this.byStem.get(key) ?? [];
        list.push(f);
        this.byStem.set(key, list);
      }
      for (const list of this.byStem.values()) list.sort((a, b) => a.length - b.length || a.localeCompare(b));
    }
    return this.byStem;
  }

  /**
   * The shortest WikiLink target that names `rel` unambiguously: the bare file name when no other note shares
   * it, else the vault path without `.md`.
   */
  linkTarget(rel: string): string {
    const stem = stemOf(rel);
    const same = this.stems().get(stem.toLowerCase()) ?? [];
    return same.length <= 1 ? stem : rel.replace(/\.(md|markdown)$/i, '');
  }
}

export function stemOf(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1).replace(/\.(md|markdown)$/i, '');
}

/** `ADR-001`, `adr-1`, `ADR 12`, `0001`, `#7` → the number; undefined when the reference is not an id. */
export function parseAdrId(ref: string): number | undefined {
  const m = /^(?:adr[-_ ]?|#)?0*(\d{1,5})$/i.exec(ref.trim());
  return m ? Number(m[1]) : undefined;
}

const FILE_NUMBER = /^(?:adr[-_]?)?0*(\d{1,5})(?=[-_ .])/i;

/** Strips a leading date or number so `0003-use-redis` and `2026-01-02-use-redis` both give `use-redis`. */
function titleSlugOfFile(rel: string): string {
  return slugify(
    stemOf(rel)
      .replace(/^\d{4}-\d{2}-\d{2}[-_ ]?|^\d{8}[-_ ]/, '')
      .replace(/^(?:adr[-_]?)?\d{1,5}[-_ ]/i, ''),
  );
}

export interface ResolveOptions {
  /** Folder(s) to prefer when an ADR number exists in several places (the decision folder). */
  preferFolders?: string[];
  /** Also match note titles by reading note heads (the slow path). Default true. */
  readTitles?: boolean;
}

/**
 * Resolves one reference to a vault-relative path. Order: vault path → file name (case-insensitive, shortest
 * path wins) → ADR id → title slug in file names → frontmatter `title` / first `# ` heading in note heads.
 * A reference that would leave the vault is PATH_OUTSIDE_VAULT; one that names nothing is NOTE_NOT_FOUND.
 */
export function resolveNoteRef(listing: VaultListing, rawRef: string, opts: ResolveOptions = {}): string {
  const ref = cleanRef(rawRef);
  if (!ref) throw new K0Error('INVALID_ARGUMENT', 'an empty note reference was given');
  if (ref.includes('\0') || isAbsolute(ref)) safeJoin(listing.notesRoot, ref); // throws PATH_OUTSIDE_VAULT
  if (/^[A-Za-z]:[\\/]/.test(ref) || ref.split(/[\\/]/).includes('..')) {
    throw new K0Error('PATH_OUTSIDE_VAULT', `note references may not leave the vault or contain "..": ${rawRef}`);
  }
  const lowerFiles = new Map(listing.files.map((f) => [f.toLowerCase(), f]));
  const asPath = ref.replace(/\\/g, '/').replace(/^\.\//, '');
  const direct = lowerFiles.get(asPath.toLowerCase()) ?? lowerFiles.get(`${asPath.toLowerCase()}.md`);
  if (direct) return checkInside(listing.notesRoot, direct);

  if (!asPath.includes('/')) {
    const byName = listing.stems().get(asPath.replace(/\.md$/i, '').toLowerCase());
    if (byName?.length) return checkInside(listing.notesRoot, byName[0]);
  }

  const id = parseAdrId(ref);
  if (id !== undefined) {
    const hits = listing.files.filter((f) => {
      const m = FILE_NUMBER.exec(stemOf(f));
      return m && Number(m[1]) === id && !/^\d{4}-\d{2}-\d{2}|^\d{8}[-_]/.test(stemOf(f));
    });
    if (hits.length === 1) return checkInside(listing.notesRoot, hits[0]);
    if (hits.length > 1) {
      const preferred = hits.filter((h) => (opts.preferFolders ?? []).some((p) => h.startsWith(p ? `${p}/` : '')));
      if (preferred.length === 1) return checkInside(listing.notesRoot, preferred[0]);
      throw new K0Error('INVALID_ARGUMENT', `"${rawRef}" is ambiguous: ${hits.join(', ')}; pass the path instead`, {
        candidates: hits,
      });
    }
  }

  const slug = slugify(ref);
  const bySlug = listing.files.filter((f) => titleSlugOfFile(f) === slug).sort((a, b) => a.length - b.length);
  if (bySlug.length) return checkInside(listing.notesRoot, bySlug[0]);

  // Slow path: a title that is not in any file name. Read only the head of each note.
  if (opts.readTitles === false) throw new K0Error('NOTE_NOT_FOUND', `no note file is named "${rawRef}"`, { ref: rawRef });
  const wanted = ref.toLowerCase();
  const byTitle: string[] = [];
  for (const f of listing.files) {
    const title = headTitle(join(listing.notesRoot, f));
    if (title && (title.toLowerCase() === wanted || slugify(title) === slug)) byTitle.push(f);
  }
  if (byTitle.length) return checkInside(listing.notesRoot, byTitle.sort((a, b) => a.length - b.length)[0]);
  throw new K0Error('NOTE_NOT_FOUND', `no note matches "${rawRef}" (tried path, file name, ADR id and title)`, { ref: rawRef });
}

/** Accepts `[[note]]`, `[[note|alias]]`, `[[note#heading]]` and plain names. */
export function cleanRef(raw: string): string {
  let s = String(raw ?? '').trim();
  const m = /^!?\[\[([^\]]*)\]\]$/.exec(s);
  if (m) s = m[1];
  return s.replace(/[|#].*$/s, '').trim();
}

/** A symlink inside the vault may point outside it: never edit a note whose real path escapes the vault. */
function checkInside(notesRoot: string, rel: string): string {
  try {
    const real = realpathSync(join(notesRoot, rel));
    const root = realpathSync(notesRoot);
    if (!isInsidePath(real, root)) {
      throw new K0Error('PATH_OUTSIDE_VAULT', `${rel} links outside the vault (${real})`);
    }
  } catch (err) {
    if (isK0Error(err)) throw err;
    throw new K0Error('NOTE_NOT_FOUND', `${rel} cannot be read: ${(err as Error).message}`);
  }
  return rel;
}

function headTitle(abs: string): string | undefined {
  let text: string;
  try {
    // A FIFO never blocks the flush: not a regular file, so no title.
    text = readRegularFile(abs, HEAD_BYTES).toString('utf8').replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  } catch {
    return undefined;
  }
  // A full YAML parse of 500 heads costs more than the whole flush budget: read the `title:` line directly and
  // fall back to the YAML parser only for the rare quoted or block-style title.
  let body = text;
  const fmBlock = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (fmBlock) {
    body = text.slice(fmBlock[0].length);
    const line = /^title:[ \t]*(.*)$/m.exec(fmBlock[1]);
    if (line) {
      const v = line[1].trim();
      if (v && !/^["'|>&*!]/.test(v) && !/\s#/.test(v)) return v;
      const fm = parseFrontmatter(text);
      if (typeof fm.data.title === 'string' && fm.data.title.trim()) return fm.data.title.trim();
    }
  }
  const h1 = /^#\s+(.+?)\s*#*\s*$/m.exec(body);
  // adr-tools headings carry the number: "# 2. Implement as shell scripts".
  return h1 ? h1[1].replace(/^\d+\.\s+/, '') : undefined;
}
