import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { K0Error } from '../errors';
import { writeFileAtomic } from '../fsutil/atomicWrite';
import { assertOwnK0Dir, K0_DIR, WIKI_DIR } from './paths';

/**
 * `k0maru init`: lays out `.k0maru/` in a project, or binds an existing Obsidian vault.
 *
 * What goes into git: the wiki (the memory itself) and `refs/` (reference material the team curates for its
 * agents — shared like the wiki, so every clone and every agent sees the same references). What stays out: the
 * index and every other cache, which any clone rebuilds from the Markdown (`.k0maru/.gitignore`).
 *
 * Idempotent: a second run creates nothing and reports everything as found. A user's file is never overwritten;
 * the only edit ever made to an existing file is appending our missing ignore lines to `.k0maru/.gitignore`
 * and adding the `vault` key to a `config.json` that has none.
 */

// The install state files remember what `init --install` / `hooks install` changed on this machine (its
// .git/hooks, its original config bytes) so uninstall can restore them: machine-local, like the index.
export const GITIGNORE_LINES = ['index.db', 'index.db-journal', 'index.db.lock/', '*.lock/', 'cache/', '*.tmp', 'index.db.corrupt-*', 'flush.journal*', 'flush.lock.stale-*/', 'flush.lock.new-*/', 'hooks-install.json', 'agents-install.json'];
const GITIGNORE_HEADER = '# k0maru: the index and caches are rebuilt from the Markdown by every clone; never commit them.';
export const WIKI_FOLDERS = ['00_Meta', '01_AI_Logs', '02_Architecture'];
export const VISION_NOTE = '00_Meta/vision.md';

export const VISION_TEMPLATE = `---
title: Vision
category: meta
status: active
---
# Vision

<!-- One or two sentences: what this project is for, and for whom. Agents read this note at the start of every session. -->

## Core Stack

<!-- Languages, frameworks, datastores. Leave empty to let k0maru detect them from package.json, Cargo.toml, go.mod or pyproject.toml. -->

## Non-goals

<!-- What this project deliberately does not do, so agents do not drift into it. -->
`;

export interface InitOptions {
  projectRoot: string;
  /** Bind this existing Obsidian vault (absolute, or relative to the project root) instead of creating `.k0maru/wiki/`. */
  vault?: string;
}

export interface InitReport {
  projectRoot: string;
  k0Dir: string;
  notesRoot: string;
  mode: 'wiki' | 'bound';
  /** Project-relative paths (folders end with `/`). */
  created: string[];
  found: string[];
  /** Existing files we added to (missing ignore lines, the `vault` key). */
  updated: string[];
  notes: string[];
}

export function initVault(opts: InitOptions): InitReport {
  const projectRoot = resolve(opts.projectRoot);
  if (!isDirectory(projectRoot)) throw new K0Error('INVALID_ARGUMENT', `project folder does not exist: ${projectRoot}`);
  // A `.k0maru` symlink to outside the project (a cloned repository can carry one) is refused before anything is written.
  assertOwnK0Dir(projectRoot);
  const k0Dir = join(projectRoot, K0_DIR);
  const report: InitReport = { projectRoot, k0Dir, notesRoot: join(k0Dir, WIKI_DIR), mode: 'wiki', created: [], found: [], updated: [], notes: [] };
  const rel = (p: string) => relative(projectRoot, p).split(sep).join('/');

  // Validate the vault before touching anything: a typo must not leave a half-initialised project.
  let vaultAbs: string | undefined;
  if (opts.vault !== undefined) {
    vaultAbs = isAbsolute(opts.vault) ? opts.vault : resolve(projectRoot, opts.vault);
    if (!isDirectory(vaultAbs)) throw new K0Error('VAULT_NOT_FOUND', `vault folder does not exist: ${vaultAbs}`);
  }

  const dir = (p: string) => {
    if (isDirectory(p)) report.found.push(`${rel(p)}/`);
    else {
      if (existsSync(p)) throw new K0Error('INVALID_ARGUMENT', `${rel(p)} exists and is not a folder`);
      mkdirSync(p, { recursive: true });
      report.created.push(`${rel(p)}/`);
    }
  };
  /** Creates a file only when nothing is there; `wx` makes a concurrent init lose cleanly instead of clobbering. */
  const file = (p: string, text: string) => {
    if (existsSync(p)) return void report.found.push(rel(p));
    try {
      writeFileSync(p, text, { flag: 'wx' });
      report.created.push(rel(p));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      report.found.push(rel(p));
    }
  };

  dir(k0Dir);
  ensureGitignore(join(k0Dir, '.gitignore'), report, rel);
  dir(join(k0Dir, 'refs'));
  file(join(k0Dir, 'refs', '.gitkeep'), '');

  if (vaultAbs) {
    report.mode = 'bound';
    report.notesRoot = vaultAbs;
    bindVault(projectRoot, k0Dir, vaultAbs, report, rel);
    if (isDirectory(join(k0Dir, WIKI_DIR))) report.notes.push(`${K0_DIR}/${WIKI_DIR}/ is kept but no longer used while the vault is bound`);
    return report;
  }

  const wiki = join(k0Dir, WIKI_DIR);
  dir(wiki);
  for (const f of WIKI_FOLDERS) {
    dir(join(wiki, f));
    // Git does not keep empty folders; the placeholder keeps the layout in every clone (the scanner skips dotfiles).
    if (f !== '00_Meta') file(join(wiki, f, '.gitkeep'), '');
  }
  file(join(wiki, VISION_NOTE), VISION_TEMPLATE);
  const cfg = readJson(join(k0Dir, 'config.json'));
  if (cfg && typeof cfg.vault === 'string') {
    report.notes.push(`config.json binds the vault ${cfg.vault}: notes are read from there, not from ${K0_DIR}/${WIKI_DIR}/`);
  }
  return report;
}

function ensureGitignore(path: string, report: InitReport, rel: (p: string) => string): void {
  if (!existsSync(path)) {
    writeFileSync(path, `${GITIGNORE_HEADER}\n${GITIGNORE_LINES.join('\n')}\n`, { flag: 'wx' });
    report.created.push(rel(path));
    return;
  }
  const text = readFileSync(path, 'utf8');
  const have = new Set(text.split(/\r?\n/).map((l) => l.trim()));
  const missing = GITIGNORE_LINES.filter((l) => !have.has(l));
  if (!missing.length) return void report.found.push(rel(path));
  writeFileAtomic(path, `${text}${text.endsWith('\n') || !text ? '' : '\n'}${GITIGNORE_HEADER}\n${missing.join('\n')}\n`);
  report.updated.push(rel(path));
}

/**
 * Writes `{ "vault": … }`: relative to the project root when the vault is inside it (the binding then travels with
 * the repository), absolute otherwise. An existing different binding is an error, never silently replaced.
 */
function bindVault(projectRoot: string, k0Dir: string, vaultAbs: string, report: InitReport, rel: (p: string) => string): void {
  const cfgPath = join(k0Dir, 'config.json');
  const inside = vaultAbs === projectRoot || vaultAbs.startsWith(projectRoot + sep);
  const value = inside ? relative(projectRoot, vaultAbs).split(sep).join('/') || '.' : vaultAbs;
  const cfg = readJson(cfgPath);
  if (cfg === undefined) {
    writeFileSync(cfgPath, JSON.stringify({ vault: value }, null, 2) + '\n', { flag: 'wx' });
    report.created.push(rel(cfgPath));
    return;
  }
  if (typeof cfg.vault === 'string') {
    const current = isAbsolute(cfg.vault) ? cfg.vault : resolve(projectRoot, cfg.vault);
    if (resolve(current) === resolve(vaultAbs)) return void report.found.push(rel(cfgPath));
    throw new K0Error('INVALID_ARGUMENT', `${rel(cfgPath)} already binds the vault ${cfg.vault}; edit it by hand to change the binding`);
  }
  writeFileAtomic(cfgPath, JSON.stringify({ ...cfg, vault: value }, null, 2) + '\n');
  report.updated.push(rel(cfgPath));
}

function readJson(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new K0Error('INVALID_ARGUMENT', `${path} is not a JSON object; fix or remove it first`);
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
