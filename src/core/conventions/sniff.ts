import { join } from 'node:path';
import { K0Error } from '../errors';
import type { VaultPaths } from '../vault/paths';
import { explicitSources, readExplicitConventions } from './explicit';
import { findCategoryFolder, findCategoryTemplate, findTemplateFolder, inferNaming, listDirs, mdFiles, type NamingGuess } from './heuristics';
import { slugify, titleFileName } from './slug';
import { BUILTIN_CATEGORIES, normalizeCategory, type CategoryRule, type ConventionRules, type NamingStyle } from './types';

/**
 * Our own layout, used for a category the vault says nothing about. Decisions are numbered (`adr-001-…`) so an
 * ADR id like `ADR-001` names them; logs carry their date; cards and skills are named by title.
 */
const DEFAULTS: Record<string, { folder: string; guess: NamingGuess }> = {
  decision: { folder: '02_Architecture', guess: { naming: 'Numbered', numbering: { prefix: 'adr-', width: 3, next: 1 } } },
  log: { folder: '01_AI_Logs', guess: { naming: 'DateSlug', dateFormat: 'YYYY-MM-DD' } },
  concept: { folder: '03_Cards', guess: { naming: 'SlugOnly' } },
  skill: { folder: '04_Skills', guess: { naming: 'SlugOnly' } },
};

export interface SniffOptions {
  /** `.k0maru/` — for `.k0maru/rules.md`. */
  k0Dir?: string;
  /** Repository root — for its `AGENTS.md` / `CONVENTIONS.md`. */
  projectRoot?: string;
  /** Also compute the rule of these custom categories (their folder defaults to the category's own name). */
  extraCategories?: string[];
}

/**
 * Answers where each category of note goes and how it is named. Precedence per category:
 * 1. an explicit mapping (`.k0maru/rules.md`, then `AGENTS.md`, then `CONVENTIONS.md`; project root before notes root);
 * 2. a folder recognised by name (Johnny Decimal prefixes ignored; `docs/adr`, `decisions/`, `journal/`, …);
 * 3. our default layout.
 * Naming: an explicit `(Numbered)`-style override, else inferred from the files already in the folder, else default.
 */
export function sniffConventions(notesRoot: string, opts: SniffOptions = {}): ConventionRules {
  const warnings: string[] = [];
  const explicit = readExplicitConventions(explicitSources({ k0Dir: opts.k0Dir, projectRoot: opts.projectRoot, notesRoot }));
  const dirs = listDirs(notesRoot);
  const rules: ConventionRules = { categoryFolders: {}, naming: {}, source: {}, categories: {}, warnings };

  const explicitFolder = new Map<string, { folder: string; naming?: NamingStyle }>();
  for (const m of explicit.mappings) {
    if (!isInsideVault(m.folder)) {
      warnings.push(`${m.origin}: folder "${m.folder}/" is outside the notes root; mapping ignored`);
      continue;
    }
    explicitFolder.set(m.category, { folder: m.folder, naming: m.naming });
  }

  const wanted = new Set<string>([...BUILTIN_CATEGORIES, ...explicitFolder.keys()]);
  for (const c of opts.extraCategories ?? []) wanted.add(normalizeCategory(c));

  const heuristic = new Map<string, string>();
  for (const c of BUILTIN_CATEGORIES) {
    const found = findCategoryFolder(notesRoot, dirs, c);
    if (found !== undefined) heuristic.set(c, found);
  }
  // A vault with cards but no decision folder (the seed's `20_Cards/adr-008-…`) keeps its decisions with the cards.
  if (!heuristic.has('decision') && heuristic.has('concept')) heuristic.set('decision', heuristic.get('concept')!);

  for (const category of wanted) {
    const ex = explicitFolder.get(category);
    const def = DEFAULTS[category];
    let folder: string;
    let source: CategoryRule['source'];
    if (ex) [folder, source] = [ex.folder, 'explicit'];
    else if (heuristic.has(category)) [folder, source] = [heuristic.get(category)!, 'heuristic'];
    else [folder, source] = [def?.folder ?? category, 'default'];

    const inferred = inferNaming(mdFiles(folder ? join(notesRoot, folder) : notesRoot));
    let guess: NamingGuess;
    let namingSource: CategoryRule['source'];
    if (ex?.naming) {
      guess = ex.naming === inferred?.naming ? inferred : withDefaults(ex.naming, category);
      namingSource = 'explicit';
    } else if (inferred) {
      guess = category === 'decision' && inferred.numbering ? { naming: 'Numbered', numbering: inferred.numbering } : inferred;
      if (category !== 'decision' && guess.naming === 'Numbered' && def && def.guess.naming !== 'Numbered') {
        // Logs / cards living in an ADR folder keep their own style rather than taking ADR numbers.
        guess = def.guess;
      }
      namingSource = 'heuristic';
    } else {
      guess = def?.guess ?? { naming: 'SlugOnly' };
      namingSource = 'default';
    }
    if (guess.naming !== 'Numbered') guess = { naming: guess.naming, dateFormat: guess.dateFormat };
    if (guess.naming !== 'DateSlug') delete guess.dateFormat;
    rules.categories[category] = { folder, ...guess, source, namingSource };
    rules.categoryFolders[category] = folder;
    rules.naming[category] = guess.naming;
    rules.source[category] = source;
  }

  const tpl = explicit.template && isInsideVault(explicit.template.folder) ? explicit.template.folder : findTemplateFolder(notesRoot);
  if (tpl) {
    rules.templatePath = tpl;
    for (const [category, rule] of Object.entries(rules.categories)) rule.template = findCategoryTemplate(notesRoot, tpl, category);
  }
  return rules;
}

/** The same, for a located project (rules.md, AGENTS.md and CONVENTIONS.md included). */
export function sniffConventionsFor(paths: VaultPaths, extraCategories?: string[]): ConventionRules {
  return sniffConventions(paths.notesRoot, { k0Dir: paths.k0Dir, projectRoot: paths.projectRoot, extraCategories });
}

function withDefaults(naming: NamingStyle, category: string): NamingGuess {
  if (naming === 'Numbered') return { naming, numbering: { prefix: category === 'decision' ? 'adr-' : '', width: 3, next: 1 } };
  if (naming === 'DateSlug') return { naming, dateFormat: 'YYYY-MM-DD' };
  return { naming };
}

function isInsideVault(folder: string): boolean {
  return !folder.startsWith('/') && !/^[A-Za-z]:/.test(folder) && !folder.split(/[\\/]/).includes('..') && !folder.includes('\0');
}

/** The rule for a category, including custom categories nobody mapped (a folder named after the category). */
export function ruleFor(rules: ConventionRules, rawCategory: string): CategoryRule {
  const category = normalizeCategory(rawCategory);
  return (
    rules.categories[category] ?? { folder: category, naming: 'SlugOnly', source: 'default', namingSource: 'default' }
  );
}

/** `YYYY-MM-DD` of a Date in local time (the day the developer sees), or a validated date string. */
export function isoDate(date: Date | string | undefined): string {
  if (typeof date === 'string') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) {
      throw new K0Error('INVALID_ARGUMENT', `date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
    }
    return date;
  }
  const d = date ?? new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * The vault-relative path a note gets: `<folder>/<stem>.md`. For Numbered naming pass `number` (the flush engine
 * re-reads the folder under its lock); otherwise the sniffed `numbering.next` is used.
 */
export function targetPathFor(
  rules: ConventionRules,
  category: string,
  title: string,
  date?: Date | string,
  opts: { number?: number } = {},
): string {
  const rule = ruleFor(rules, category);
  const slug = slugify(title);
  let stem: string;
  if (rule.naming === 'DateSlug') {
    const day = isoDate(date);
    stem = `${rule.dateFormat === 'YYYYMMDD' ? day.replace(/-/g, '') : day}-${slug}`;
  } else if (rule.naming === 'Numbered') {
    const scheme = rule.numbering ?? { prefix: '', width: 4, next: 1 };
    const n = opts.number ?? scheme.next;
    stem = `${scheme.prefix}${String(n).padStart(scheme.width, '0')}-${slug}`;
  } else if (rule.naming === 'Title') {
    stem = titleFileName(title);
  } else {
    stem = slug;
  }
  return rule.folder ? `${rule.folder}/${stem}.md` : `${stem}.md`;
}
