import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { isNoteFolderName, listNoteFiles } from '../vault/noteFiles';
import type { BuiltinCategory, NamingStyle, NumberingScheme } from './types';

/**
 * Directory heuristics: which existing folder looks like the home of decisions, logs, concept cards, skills.
 * Only directory names are read (no file contents), three levels deep, so sniffing stays cheap on a big vault.
 */

const MAX_DEPTH = 3;
const MAX_DIRS = 3000;
const SKIP_DIR = /^(\.|node_modules$|_?templates?$|attachments?$|assets$|dist$|build$|target$|vendor$)/i;

/** Johnny Decimal / numbered prefixes: `10_`, `02-`, `10-19 `, `1. ` */
const NUMBER_PREFIX = /^\d+(?:-\d+)?[ _.-]+/;

/** Name patterns per category, strongest first; the index is the pattern's rank (lower is better). */
const PATTERNS: Record<BuiltinCategory, RegExp[]> = {
  decision: [
    /^(adrs?|decisions?|architecture[ _-]?decisions?(?:[ _-]?records?)?|decision[ _-]?records?)$/i,
    /^(architecture)$/i,
  ],
  log: [/^(ai[ _-]?logs?|dev[ _-]?logs?|logs?|journals?|daily([ _-]?notes)?|sessions?)$/i],
  concept: [/^(cards?|concepts?|zettel(kasten)?|permanent([ _-]?notes)?|knowledge)$/i],
  skill: [/^(skills?|playbooks?|runbooks?|troubleshooting|how[ _-]?tos?)$/i],
};

export interface DirInfo {
  /** Vault-relative, `/`-separated. */
  rel: string;
  name: string;
  depth: number;
}

/** Lists directories under the notes root, breadth first, up to three levels. */
export function listDirs(notesRoot: string): DirInfo[] {
  const out: DirInfo[] = [];
  const queue: DirInfo[] = [{ rel: '', name: '', depth: 0 }];
  while (queue.length && out.length < MAX_DIRS) {
    const cur = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(cur.rel ? join(notesRoot, cur.rel) : notesRoot, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      // The note walk's folder rule first (dot-folders, node_modules, build output…), then the sniffer's own
      // "not a note home" names (templates, attachments).
      if (!e.isDirectory() || !isNoteFolderName(e.name) || SKIP_DIR.test(e.name)) continue;
      const info = { rel: cur.rel ? `${cur.rel}/${e.name}` : e.name, name: e.name, depth: cur.depth + 1 };
      out.push(info);
      if (info.depth < MAX_DEPTH) queue.push(info);
    }
  }
  return out;
}

/**
 * Picks the folder for a category: best name pattern, then the folder holding more Markdown files, then the
 * shallower one. `docs/architecture/decisions` beats `docs/architecture` because "decisions" is the stronger name.
 */
export function findCategoryFolder(notesRoot: string, dirs: DirInfo[], category: BuiltinCategory): string | undefined {
  let best: { rel: string; rank: number; files: number; depth: number } | undefined;
  for (const d of dirs) {
    const bare = d.name.replace(NUMBER_PREFIX, '');
    const rank = PATTERNS[category].findIndex((re) => re.test(bare));
    if (rank < 0) continue;
    const cand = { rel: d.rel, rank, files: -1, depth: d.depth };
    if (!best) {
      best = cand;
      continue;
    }
    if (cand.rank !== best.rank) {
      if (cand.rank < best.rank) best = cand;
      continue;
    }
    // Same strength: count Markdown files only now, for the few folders that tie.
    if (best.files < 0) best.files = mdFiles(join(notesRoot, best.rel)).length;
    cand.files = mdFiles(join(notesRoot, cand.rel)).length;
    if (cand.files > best.files || (cand.files === best.files && cand.depth < best.depth)) best = cand;
  }
  return best?.rel;
}

const IGNORED_NOTE = /^(readme|index|template|_?index|toc|\d*-?adr-template)\.md$/i;

/** The notes directly in `dir` (the note walk's rule, one level), minus README/index/template files. */
export function mdFiles(dir: string): string[] {
  return notesIn(dir).filter((n) => !IGNORED_NOTE.test(n));
}

/** Every note directly in `dir`, README and templates included. */
function notesIn(dir: string): string[] {
  return listNoteFiles(dir, { maxDepth: 0 }).files.map((f) => f.rel);
}

const DATE_DASHED = /^\d{4}-\d{2}-\d{2}(?=[-_ ]|\.md$)/;
const DATE_COMPACT = /^(?:19|20)\d{6}(?=[-_ ])/;
/** `0007-x`, `adr-007-x`, `ADR-7-x`, `adr003-x` (backstage). A four-digit year-like number alone is not ADR numbering. */
const NUMBERED = /^(adr[-_]?|ADR[-_]?)?(\d{1,5})(?=[-_ ])/;

export interface NamingGuess {
  naming: NamingStyle;
  dateFormat?: 'YYYY-MM-DD' | 'YYYYMMDD';
  numbering?: NumberingScheme;
}

/** Infers the naming style from the file names already in a folder; undefined when the folder is empty. */
export function inferNaming(files: string[]): NamingGuess | undefined {
  if (!files.length) return undefined;
  let dashed = 0;
  let compact = 0;
  let slug = 0;
  let titled = 0;
  const numbered: { prefix: string; digits: number; n: number }[] = [];
  for (const f of files) {
    if (DATE_DASHED.test(f)) dashed++;
    else if (DATE_COMPACT.test(f)) compact++;
    else {
      const m = NUMBERED.exec(f);
      // A bare number without zero padding ("3-things.md") is a title, not ADR numbering.
      if (m && (m[1] || m[2].length >= 3)) numbered.push({ prefix: m[1] ?? '', digits: m[2].length, n: Number(m[2]) });
      else {
        slug++;
        if (/[ A-Z]/.test(f.replace(/\.md$/i, ''))) titled++;
      }
    }
  }
  const max = Math.max(dashed + compact, numbered.length, slug);
  // The numbering scheme is reported even when it is not the majority: decisions sharing a folder with cards
  // (`20_Cards/adr-008-…` beside `redis-mutex.md`) still continue the ADR numbers.
  const numbering = numbered.length ? numberingOf(numbered) : undefined;
  if (numbered.length === max && numbering) return { naming: 'Numbered', numbering };
  if (dashed + compact === max && max > 0) return { naming: 'DateSlug', dateFormat: compact > dashed ? 'YYYYMMDD' : 'YYYY-MM-DD', numbering };
  // Names with spaces or capitals ("Use Stripe.md") are titles, the Obsidian habit; keep it when most are.
  return { naming: titled * 2 > slug ? 'Title' : 'SlugOnly', numbering };
}

function numberingOf(found: { prefix: string; digits: number; n: number }[]): NumberingScheme {
  const mostCommon = <T>(xs: T[]): T => {
    const counts = new Map<T, number>();
    for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
  };
  return {
    prefix: mostCommon(found.map((f) => f.prefix)),
    width: mostCommon(found.map((f) => f.digits)),
    next: Math.max(...found.map((f) => f.n)) + 1,
  };
}

/** Re-reads only the numbers in a folder: used under the flush lock so two writers never take the same number. */
export function nextNumber(dir: string): number {
  let max = 0;
  for (const f of mdFiles(dir)) {
    if (DATE_DASHED.test(f) || DATE_COMPACT.test(f)) continue;
    const m = NUMBERED.exec(f);
    if (m && (m[1] || m[2].length >= 3)) max = Math.max(max, Number(m[2]));
  }
  return max + 1;
}

/** Template folder: an explicit one, `templates/`, `_templates/`, or Obsidian's core Templates plugin setting. */
export function findTemplateFolder(notesRoot: string): string | undefined {
  try {
    const cfg = JSON.parse(readFileSync(join(notesRoot, '.obsidian', 'templates.json'), 'utf8')) as { folder?: unknown };
    if (typeof cfg.folder === 'string' && cfg.folder.trim()) return cfg.folder.trim().replace(/^\/+|\/+$/g, '');
  } catch {
    // no Obsidian templates config
  }
  // listDirs skips template folders (they are not note homes), so look at the root level directly.
  try {
    for (const e of readdirSync(notesRoot, { withFileTypes: true })) {
      if (e.isDirectory() && /^_?templates?$/i.test(e.name.replace(NUMBER_PREFIX, ''))) return e.name;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** A template for a category inside the template folder: `adr.md`, `decision.md`, `log.md`, `skill.md`… */
export function findCategoryTemplate(notesRoot: string, templateFolder: string, category: string): string | undefined {
  const names: Record<string, RegExp> = {
    decision: /^(adr|decision|architecture[ _-]?decision)([ _-]?template)?\.md$/i,
    log: /^(log|journal|daily|session)([ _-]?(log|note|template))?\.md$/i,
    concept: /^(concept|card|zettel)([ _-]?template)?\.md$/i,
    skill: /^(skill|playbook|runbook)([ _-]?template)?\.md$/i,
  };
  const re = names[category] ?? new RegExp(`^${category.replace(/[^\w-]/g, '')}([ _-]?template)?\\.md$`, 'i');
  const hit = notesIn(join(notesRoot, templateFolder)).find((f) => re.test(f)); // templates included; a folder named `adr.md` is not one
  return hit ? `${templateFolder}/${hit}` : undefined;
}
