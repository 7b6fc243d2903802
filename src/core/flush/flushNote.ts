import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isK0Error, K0Error } from '../errors';
import type { VaultPaths } from '../vault/paths';
import { safeJoin } from '../vault/paths';
import { isInsidePath } from '../vault/noteFiles';
import { nextNumber } from '../conventions/heuristics';
import { ruleFor, sniffConventionsFor, targetPathFor } from '../conventions/sniff';
import { slugify } from '../conventions/slug';
import type { CategoryRule, ConventionRules } from '../conventions/types';
import { acquireFlushLock } from './lock';
import { normalizeInput, renderNote, wikiLink, type FlushInput, type NormalizedInput } from './render';
import { resolveNoteRef, stemOf, VaultListing } from './resolveNote';
import { commitFiles, type Fault } from './commit';
import { setFrontmatterFields } from './frontmatterEdit';
import { describeRecovery, recoverLocked } from './recover';
import { faultPoint } from '../fsutil/fault';
import { sweepStaleTemps } from '../fsutil/atomicWrite';
import { throwIfCancelled } from '../host/cancel';
import { parseAdrRules } from '../guard/ruleParser';
import { describeDropped, droppedRules } from './droppedRules';

export type FlushOutcome = 'created' | 'up_to_date' | 'versioned';

export interface FlushResult {
  /** created = new file at the preferred name; versioned = written as `-v2`, `-v3`… beside a different file;
   *  up_to_date = a file with exactly these bytes was already there, nothing written. */
  outcome: FlushOutcome;
  /** Vault-relative path of the note (new or already present). */
  path: string;
  absPath: string;
  category: string;
  /** Vault-relative paths of the notes now marked `status: superseded` (including ones that already were). */
  superseded: string[];
  /** How the folder and name were chosen. */
  rule: { folder: string; naming: CategoryRule['naming']; source: CategoryRule['source'] };
  /** Non-fatal notes: a related note that does not exist yet (kept as an unresolved link), … */
  warnings: string[];
}

export interface FlushOptions {
  /** Pre-computed conventions (the MCP server may cache them); default: sniffed now. */
  conventions?: ConventionRules;
  now?: Date;
  lockTimeoutMs?: number;
  /** Test hook: throw at a commit step to prove the rollback. */
  fault?: Fault;
  /** Where K0MARU_FAULT (crash injection, see src/core/fsutil/fault.ts) is read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * The caller withdrew (an MCP cancellation): checked once, on entry (CANCELLED, nothing written); a flush that
   * has begun is never stopped half-way.
   */
  signal?: AbortSignal;
}

const MAX_VERSIONS = 999;

/**
 * Writes one note into the vault the way the vault's conventions say, never overwriting anything, and marks the
 * notes it supersedes — all files or none. Safe against concurrent flushes from other processes.
 */
export async function flushNote(paths: VaultPaths, input: FlushInput, opts: FlushOptions = {}): Promise<FlushResult> {
  throwIfCancelled(opts.signal, 'flush');
  // The only cancellation point: past it the flush runs to the end of its commit (all files or none).
  const n = normalizeInput(input, opts.now);
  const rules = opts.conventions ?? sniffConventionsFor(paths, [n.category]);
  const rule = ruleFor(rules, n.category);
  const warnings: string[] = [...rules.warnings];
  // Validate the folder before taking the lock: a mapping can never send a note outside the vault.
  if (rule.folder) safeJoin(paths.notesRoot, rule.folder);

  const lock = acquireFlushLock(paths.k0Dir, opts.lockTimeoutMs);
  try {
    faultPoint('flush', 'lock', opts.env);
    // A flush killed earlier is finished (or undone) before this one reads the vault.
    const recovered = describeRecovery(recoverLocked(paths, opts.env));
    if (recovered) warnings.push(recovered);
    const needListing = n.supersedes.length > 0 || n.related.length > 0;
    const listing = needListing ? VaultListing.of(paths) : undefined;

    const decisionFolder = rules.categoryFolders.decision;
    const olds = [...new Set(n.supersedes.map((ref) => resolveNoteRef(listing!, ref, { preferFolders: [decisionFolder] })))];
    const related = resolveRelated(n, listing, warnings);

    const supersedesLinks = olds.map((p) => wikiLink(listing!.linkTarget(p)));
    const text = renderNote(n, { related, supersedes: supersedesLinks });
    const { rel, outcome } = pickTarget(paths, rules, rule, n, text);
    if (olds.includes(rel)) throw new K0Error('INVALID_ARGUMENT', `a note cannot supersede itself: ${rel}`);

    const edits = olds.map((old) => {
      const abs = safeJoin(paths.notesRoot, old);
      const raw = readFileSync(abs);
      const before = raw.toString('utf8');
      // Decoding invalid UTF-8 would silently replace bytes we promise to leave untouched.
      if (!Buffer.from(before, 'utf8').equals(raw)) throw new K0Error('INVALID_ARGUMENT', `${old} is not valid UTF-8; not editing it`);
      const newLink = wikiLink(linkTargetWith(listing!, rel));
      const fields = { status: 'superseded', superseded_by: newLink };
      const after = setFrontmatterFields(before, fields, old);
      return { rel: old, abs, before, after, fields };
    });
    const changed = edits.filter((e) => e.after !== e.before);
    // Superseding turns the old ADRs' rules off: a replacement that does not carry them lifts the guard. Every
    // adapter (MCP, CLI, editor) reports it from here, read from the very notes being superseded.
    const dropped = droppedRules(changed.map((e) => parseAdrRules(e.before, e.rel)), changed.map((e) => e.rel), text);
    if (dropped.length) warnings.push(describeDropped(dropped));

    if (outcome === 'up_to_date' && !changed.length) {
      return result(paths, rel, outcome, n, rule, olds, warnings);
    }
    const newAbs = safeJoin(paths.notesRoot, rel);
    if (outcome !== 'up_to_date') assertRealInside(paths.notesRoot, newAbs);
    let created: boolean;
    try {
      created = commitFiles({
        k0Dir: paths.k0Dir,
        notesRoot: paths.notesRoot,
        create: outcome === 'up_to_date' ? undefined : { rel, text },
        replace: changed.map((e) => ({ rel: e.rel, before: e.before, after: e.after, fields: e.fields })),
        fault: opts.fault,
        env: opts.env,
      });
    } catch (err) {
      if (isK0Error(err)) throw err;
      throw new K0Error('IO_ERROR', `flush of ${rel} failed, nothing was written: ${(err as Error).message}`);
    }
    if (!created) {
      // Someone outside k0maru (an editor, a git checkout) created the file between our check and our write.
      throw new K0Error('WRITE_CONFLICT', `${rel} appeared while flushing; nothing was written, try again`);
    }
    // Temps a killed writer of an older version (or another of our writers) left beside the ADRs we edit. Only on
    // a superseding flush (rare, and its folders are small): listing a 5,000-note log folder on every flush costs
    // more than the flush itself. Our own flushes leave none after recovery (journal.ts).
    if (changed.length) for (const d of new Set([dirname(newAbs), ...changed.map((e) => dirname(e.abs))])) sweepStaleTemps(d);
    return result(paths, rel, outcome, n, rule, olds, warnings);
  } finally {
    faultPoint('flush', 'unlock', opts.env);
    lock.release();
  }
}

/**
 * A category folder that is a symlink to somewhere else would carry the note out of the vault: check the real
 * path of the deepest folder that already exists.
 */
function assertRealInside(notesRoot: string, abs: string): void {
  const root = realpathSync(notesRoot);
  let dir = dirname(abs);
  while (!existsSync(dir) && dir !== dirname(dir)) dir = dirname(dir);
  const real = realpathSync(dir);
  if (!isInsidePath(real, root)) {
    throw new K0Error('PATH_OUTSIDE_VAULT', `${relative(notesRoot, dirname(abs))} leads outside the vault (${real})`);
  }
}

function result(
  paths: VaultPaths,
  rel: string,
  outcome: FlushOutcome,
  n: NormalizedInput,
  rule: CategoryRule,
  olds: string[],
  warnings: string[],
): FlushResult {
  return {
    outcome,
    path: rel,
    absPath: join(paths.notesRoot, rel),
    category: n.category,
    superseded: olds,
    rule: { folder: rule.folder, naming: rule.naming, source: rule.source },
    warnings,
  };
}

/** Related notes that exist are linked by their canonical name; unknown ones stay as given (an unresolved link). */
function resolveRelated(n: NormalizedInput, listing: VaultListing | undefined, warnings: string[]): string[] {
  return n.related.map((r) => {
    try {
      const rel = resolveNoteRef(listing!, r.target, { readTitles: false });
      return wikiLink(listing!.linkTarget(rel), r.heading, r.alias);
    } catch (err) {
      if (isK0Error(err) && err.code === 'PATH_OUTSIDE_VAULT') throw err;
      warnings.push(`related note "${r.target}" not found; linked unresolved`);
      return wikiLink(r.target, r.heading, r.alias);
    }
  });
}

/** The link target for the new note, counting the note itself among the vault's file names. */
function linkTargetWith(listing: VaultListing, rel: string): string {
  const clash = listing.files.some((f) => f !== rel && stemOf(f).toLowerCase() === stemOf(rel).toLowerCase());
  return clash ? rel.replace(/\.md$/i, '') : stemOf(rel);
}

/**
 * The preferred path, then `-v2`, `-v3`… The first candidate holding exactly our bytes means up to date; the first
 * free one is ours. Numbered folders keep the number of an existing note with the same title (`adr-003-x-v2.md`)
 * and otherwise take the next number, read under the lock so two writers never share one.
 */
function pickTarget(paths: VaultPaths, rules: ConventionRules, rule: CategoryRule, n: NormalizedInput, text: string) {
  let base: string;
  if (rule.naming === 'Numbered') {
    const dir = rule.folder ? join(paths.notesRoot, rule.folder) : paths.notesRoot;
    base = sameTitleNumbered(dir, rule, slugify(n.title)) ?? targetPathFor(rules, n.category, n.title, n.date, { number: nextNumber(dir) });
  } else {
    base = targetPathFor(rules, n.category, n.title, n.date);
  }
  const stem = base.replace(/\.md$/, '');
  for (let v = 1; v <= MAX_VERSIONS; v++) {
    const rel = v === 1 ? base : `${stem}-v${v}.md`;
    const abs = safeJoin(paths.notesRoot, rel);
    if (!existsSync(abs)) return { rel, outcome: (v === 1 ? 'created' : 'versioned') as FlushOutcome };
    let existing: string | undefined;
    try {
      existing = readFileSync(abs, 'utf8');
    } catch {
      existing = undefined; // a directory or unreadable file of that name: never ours, take the next version
    }
    if (existing === text) return { rel, outcome: 'up_to_date' as FlushOutcome };
  }
  throw new K0Error('WRITE_CONFLICT', `more than ${MAX_VERSIONS} versions of ${base} exist`);
}

/** In a numbered folder, an existing `<prefix><number>-<slug>.md` with our slug (the same decision). */
function sameTitleNumbered(dir: string, rule: CategoryRule, slug: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const re = /^(?:adr[-_]?)?\d{1,5}[-_ ](.+)\.md$/i;
  const hit = names
    .filter((f) => re.exec(f)?.[1]?.toLowerCase() === slug)
    .sort((a, b) => a.length - b.length || a.localeCompare(b))[0];
  return hit ? (rule.folder ? `${rule.folder}/${hit}` : hit) : undefined;
}
