import { existsSync } from 'node:fs';
import { readRegularFile } from '../vault/regularFile';
import { join } from 'node:path';
import { normalizeCategory, type NamingStyle } from './types';

/**
 * Explicit mappings a team writes down in `.k0maru/rules.md`, `AGENTS.md` or `CONVENTIONS.md`.
 *
 * Syntax — one mapping per line, optionally a list item, optionally in backticks; the folder MUST end with `/`
 * (that is what tells a mapping apart from ordinary prose in an AGENTS.md):
 *
 *     decision: 02_Architecture/
 *     - decisions → docs/adr/ (Numbered)
 *     * `log -> journal/` (DateSlug)
 *     - category incident: postmortems/
 *     template: _templates/
 *
 * Separators `:`, `->`, `→`, `=>`. Category words: decision(s)/adr(s), log(s)/journal, concept(s)/card(s),
 * skill(s)/playbook(s); any other name needs the `category NAME:` form. An optional trailing `(DateSlug)`,
 * `(SlugOnly)`, `(Title)` or `(Numbered)` fixes the naming. Folders are relative to the notes root.
 */
export interface ExplicitMapping {
  category: string;
  folder: string;
  naming?: NamingStyle;
  /** `file:line` where it was declared. */
  origin: string;
}

export interface ExplicitConventions {
  mappings: ExplicitMapping[];
  template?: { folder: string; origin: string };
}

const KNOWN_WORDS = /^(decisions?|adrs?|logs?|journal|concepts?|cards?|skills?|playbooks?)$/i;
const LINE =
  /^\s*(?:[-*+]\s+)?`?(?:(category)\s+)?([\p{L}\p{N}_-]+)\s*(?::|->|→|=>)\s*`?\s*`?([^\s`]+\/)`?\s*(?:\(\s*(DateSlug|SlugOnly|Title|Numbered)\s*\))?\s*`?\s*$/iu;
const NAMINGS: Record<string, NamingStyle> = { dateslug: 'DateSlug', slugonly: 'SlugOnly', title: 'Title', numbered: 'Numbered' };

/** Files in precedence order: the first one that maps a category wins for that category. */
export function explicitSources(opts: { k0Dir?: string; projectRoot?: string; notesRoot: string }): string[] {
  const out: string[] = [];
  if (opts.k0Dir) out.push(join(opts.k0Dir, 'rules.md'));
  for (const base of [opts.projectRoot, opts.notesRoot]) {
    if (!base) continue;
    out.push(join(base, 'AGENTS.md'), join(base, 'CONVENTIONS.md'));
  }
  return [...new Set(out)];
}

export function readExplicitConventions(files: string[]): ExplicitConventions {
  const result: ExplicitConventions = { mappings: [] };
  const seen = new Set<string>();
  for (const file of files) {
    if (!existsSync(file)) continue;
    let text: string;
    try {
      text = readRegularFile(file, 1024 * 1024).toString('utf8'); // a FIFO AGENTS.md never blocks a flush
    } catch {
      continue; // an unreadable AGENTS.md must not stop a flush
    }
    parseExplicit(text, file, result, seen);
  }
  return result;
}

export function parseExplicit(text: string, origin: string, into: ExplicitConventions, seen = new Set<string>()): ExplicitConventions {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let inFence = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      return;
    }
    if (inFence) return;
    const m = LINE.exec(line);
    if (!m) return;
    const [, customKw, word, folderRaw, namingRaw] = m;
    const where = `${origin}:${i + 1}`;
    const folder = folderRaw.replace(/^\.\//, '').replace(/\/+$/, '');
    if (/^templates?$/i.test(word) && !customKw) {
      if (!into.template) into.template = { folder, origin: where };
      return;
    }
    if (!customKw && !KNOWN_WORDS.test(word)) return;
    const category = normalizeCategory(word);
    if (seen.has(category)) return;
    seen.add(category);
    into.mappings.push({ category, folder, naming: namingRaw ? NAMINGS[namingRaw.toLowerCase()] : undefined, origin: where });
  });
  return into;
}
