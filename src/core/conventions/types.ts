/**
 * What the ConventionSniffer answers: where a note of each category goes and how its file is named.
 * Folders are relative to the notes root (`.k0maru/wiki/` or the bound vault), `/`-separated, no trailing slash
 * ('' = the notes root itself).
 */

/** The built-in categories; anything else is a custom category (a folder named after it unless mapped). */
export const BUILTIN_CATEGORIES = ['decision', 'log', 'concept', 'skill'] as const;
export type BuiltinCategory = (typeof BUILTIN_CATEGORIES)[number];

/**
 * - `DateSlug`: `2026-11-30-title-slug.md` (or `20261130-title-slug.md`, see `dateFormat`)
 * - `SlugOnly`: `title-slug.md`
 * - `Title`: the title itself as the file name, `Use Stripe.md` (Obsidian vaults); only characters Obsidian
 *   forbids in names are dropped
 * - `Numbered`: ADR numbering, `0007-title-slug.md` or `adr-007-title-slug.md` (see `numbering`)
 */
export type NamingStyle = 'DateSlug' | 'SlugOnly' | 'Title' | 'Numbered';

/** explicit = declared in rules.md / AGENTS.md / CONVENTIONS.md; heuristic = read off the vault; default = ours. */
export type RuleSource = 'explicit' | 'heuristic' | 'default';

export interface NumberingScheme {
  /** Text before the number, exactly as the existing files spell it: '', 'adr-', 'ADR-', 'adr'. */
  prefix: string;
  /** Zero-padded width of the number (4 for `0007`, 3 for `adr-007`). */
  width: number;
  /** The number the next note gets: highest existing number + 1 (gaps are never refilled). */
  next: number;
}

export interface CategoryRule {
  folder: string;
  naming: NamingStyle;
  /** Only for DateSlug: the date prefix style found in the folder. */
  dateFormat?: 'YYYY-MM-DD' | 'YYYYMMDD';
  numbering?: NumberingScheme;
  /** A template note for this category (vault-relative), when the vault has one. */
  template?: string;
  /** Where the folder came from. */
  source: RuleSource;
  /** Where the naming came from (explicit naming override, inferred from files, or our default). */
  namingSource: RuleSource;
}

export interface ConventionRules {
  /** category → folder, for every built-in category and every explicitly mapped custom one. */
  categoryFolders: Record<string, string>;
  /** category → naming style. */
  naming: Record<string, NamingStyle>;
  /** category → where its folder came from. */
  source: Record<string, RuleSource>;
  /** Full per-category detail (numbering, date format, template). */
  categories: Record<string, CategoryRule>;
  /** The vault's template folder (vault-relative), if any. */
  templatePath?: string;
  /** Mappings that were found but ignored (escaping the vault, unknown naming…), for `k0maru doctor`-style output. */
  warnings: string[];
}

const ALIASES: Record<string, BuiltinCategory> = {
  decision: 'decision',
  decisions: 'decision',
  adr: 'decision',
  adrs: 'decision',
  log: 'log',
  logs: 'log',
  journal: 'log',
  concept: 'concept',
  concepts: 'concept',
  card: 'concept',
  cards: 'concept',
  skill: 'skill',
  skills: 'skill',
  playbook: 'skill',
  playbooks: 'skill',
};

/** Maps a category name or alias to its canonical name; custom names become a lower-case slug. */
export function normalizeCategory(raw: string | undefined): string {
  const s = (raw ?? '').trim().toLowerCase();
  if (!s) return 'log';
  if (ALIASES[s]) return ALIASES[s];
  const slug = s
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return slug || 'log';
}
