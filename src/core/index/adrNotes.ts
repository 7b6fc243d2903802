import type { IndexDb } from './db';
import { tierFor } from './tiers';
import { isTemplateNote } from '../vault/templateNotes';

/** Categories that mean "a decision record". */
const DECISION_CATEGORIES = new Set(['decision', 'adr']);
/** Folders that hold decision records: `02_Architecture/`, `adr/`, `docs/decisions/`… */
const ADR_FOLDER = /(^|\/)(\d+[_ -]?)?(architecture|adrs?|decisions?)(\/|$)/i;

/**
 * Is this note an ADR? By the rule the index's tiers use: a category the vault knows wins over the folder (a
 * `category: log` meeting note in `02_Architecture/` is a log, a `category: concept` card there is a card); a note
 * with no category, or one the tiers do not know, is an ADR when it sits in an ADR folder. A template
 * (vault/templateNotes.ts: `adr-template.md`, `0000-template.md`…) never is. The Architecture view,
 * the loadout's decision list and the Flush wizard's "supersedes" choices all ask this one function.
 */
export function isAdrNote(relPath: string, category: string | null | undefined): boolean {
  // An ADR tool's template sits in the ADR folder but records nothing: not listed, loaded out or superseded.
  if (isTemplateNote(relPath)) return false;
  const cat = category?.trim().toLowerCase();
  if (cat && DECISION_CATEGORIES.has(cat)) return true;
  // tierFor with no folder answers L1 exactly when it does not know the category.
  if (cat && tierFor('', cat) !== 'L1') return false;
  const dir = relPath.includes('/') ? relPath.slice(0, relPath.lastIndexOf('/')) : '';
  return ADR_FOLDER.test(dir);
}

export type AdrNoteRow = {
  path: string;
  title: string;
  category: string | null;
  status: string | null;
  date: string | null;
  superseded: boolean;
  /** The note's frontmatter as JSON text (summary, id…). */
  frontmatter: string | null;
};

/** The indexed ADRs (see isAdrNote), newest first (date, then path, descending). */
export function listAdrNotes(index: Pick<IndexDb, 'all'>): AdrNoteRow[] {
  const rows = index.all('SELECT path, title, category, status, date, superseded, frontmatter FROM documents ORDER BY COALESCE(date, \'\') DESC, path DESC');
  const out: AdrNoteRow[] = [];
  for (const r of rows) {
    const path = String(r.path);
    const category = r.category === null ? null : String(r.category);
    if (!isAdrNote(path, category)) continue;
    out.push({
      path,
      title: String(r.title),
      category,
      status: r.status === null ? null : String(r.status),
      date: r.date === null ? null : String(r.date),
      superseded: Number(r.superseded) === 1,
      frontmatter: r.frontmatter === null ? null : String(r.frontmatter),
    });
  }
  return out;
}
