import { realpathSync, statSync } from 'node:fs';
import { readRegularFile } from './regularFile';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { K0Error } from '../errors';
import { isInsidePath, linkRefusal, listNoteFiles, type ListNotesOptions, type NoteFile, type SkippedFile } from './noteFiles';
import { readConfig, safeJoin, type K0Config, type VaultPaths } from './paths';
import { isProjectNotePath, PROJECT_PATH_PREFIX } from './notePath';

/**
 * Where a project's notes come from: the vault (`.k0maru/wiki/` or a bound Obsidian vault) and the ADR folders the
 * repository already has (`docs/adr/` …, or the config's `sources`), read in place. The indexer and the guard both
 * list notes through `listProjectNotes`, so an ADR is enforced exactly when it is indexed.
 *
 * Index paths: a vault note keeps its vault-relative path (`02_Architecture/adr-001.md`); a note of a project
 * folder is `:/` + its project-relative path (`:/docs/adr/0001-use-postgres.md`) — `:/` is git's spelling for
 * "from the top of the working tree", and no vault path can start with it (no file name is `:` on Windows, and the
 * vault walk never lists a top-level `:`), so the two never collide. `noteFileFor` turns either back into a file.
 */

export { isProjectNotePath, PROJECT_PATH_PREFIX, noteFilePath } from './notePath';

/** ADR folders teams already keep (adr-tools, log4brains, MADR defaults), project-relative. */
export const DEFAULT_ADR_FOLDERS = ['docs/adr', 'doc/adr', 'docs/decisions', 'docs/architecture/decisions', 'architecture-decision-record'];

export interface NoteSource {
  /** Absolute folder walked. */
  root: string;
  /** Prepended to the walk's relative paths to make index paths: '' for the vault, `:/docs/adr/` for a folder. */
  prefix: string;
  /** Symlinks are followed only to targets inside this folder. */
  boundary: string;
  exclude: string[];
}

export interface ProjectNote extends NoteFile {
  /** The note's index path (see the module comment). */
  path: string;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The vault's symlink boundary: the project root when the vault is inside it, else the (external) vault itself. */
export function vaultBoundary(paths: Pick<VaultPaths, 'projectRoot' | 'notesRoot'>): string {
  return isInsidePath(resolve(paths.notesRoot), resolve(paths.projectRoot)) ? paths.projectRoot : paths.notesRoot;
}

/** Project-relative ADR folders: the config's `sources` when given (`[]` turns them off), else the defaults. */
function sourceFolders(cfg: K0Config): string[] {
  if (cfg.sources === undefined) return DEFAULT_ADR_FOLDERS;
  if (!Array.isArray(cfg.sources) || cfg.sources.some((s) => typeof s !== 'string')) {
    throw new K0Error('INVALID_ARGUMENT', 'config.json: "sources" must be a list of project-relative folders');
  }
  return cfg.sources.map((s) => {
    const clean = s.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
    if (!clean || isAbsolute(clean) || /^[A-Za-z]:/.test(clean) || clean.split('/').includes('..') || clean.includes('\0')) {
      throw new K0Error('PATH_OUTSIDE_VAULT', `config.json: source folder "${s}" must be a folder inside the project`);
    }
    return clean;
  });
}

/**
 * The note sources of a project, vault first. A folder that does not exist is left out (checked on every call:
 * five stats, so a `docs/adr/` created later is picked up by the next scan). A folder inside the vault is left out
 * (the vault walk covers it); a vault inside a folder is excluded from that folder's walk.
 */
export function noteSources(paths: VaultPaths, cfg: K0Config = readConfig(paths.k0Dir)): NoteSource[] {
  const vault: NoteSource = { root: paths.notesRoot, prefix: '', boundary: vaultBoundary(paths), exclude: cfg.exclude ?? [] };
  const out = [vault];
  const notesAbs = resolve(paths.notesRoot);
  for (const folder of sourceFolders(cfg)) {
    const abs = resolve(paths.projectRoot, folder);
    if (!isDir(abs) || isInsidePath(abs, notesAbs)) continue;
    const exclude: string[] = [];
    if (isInsidePath(notesAbs, abs)) exclude.push(`${relative(abs, notesAbs).split(sep).join('/')}/**`);
    const rel = relative(paths.projectRoot, abs).split(sep).join('/');
    if (out.some((s) => s.prefix && isInsidePath(abs, s.root))) continue; // `docs` and `docs/adr` both listed
    out.push({ root: abs, prefix: `${PROJECT_PATH_PREFIX}${rel}/`, boundary: paths.projectRoot, exclude });
  }
  return out;
}

/** Every note of every source, with its index path. Paths are unique: sources never overlap (see above). */
export function listSourceNotes(sources: NoteSource[], opts: Pick<ListNotesOptions, 'stat' | 'maxDepth'> = {}): { files: ProjectNote[]; skipped: SkippedFile[] } {
  const files: ProjectNote[] = [];
  const skipped: SkippedFile[] = [];
  for (const s of sources) {
    const r = listNoteFiles(s.root, { ...opts, exclude: s.exclude, boundary: s.boundary });
    for (const f of r.files) {
      // A top-level `:` in the vault would shadow the project namespace: not a note name anyone uses.
      if (!s.prefix && isProjectNotePath(f.rel)) {
        skipped.push({ path: f.rel, reason: 'a vault folder named ":" is reserved for project paths' });
        continue;
      }
      files.push({ ...f, path: s.prefix + f.rel });
    }
    for (const k of r.skipped) skipped.push({ path: k.path === '.' && s.prefix ? s.prefix.slice(0, -1) : s.prefix + k.path, reason: k.reason });
  }
  return { files, skipped };
}

export function listProjectNotes(paths: VaultPaths, opts: Pick<ListNotesOptions, 'stat' | 'maxDepth'> & { config?: K0Config } = {}): { files: ProjectNote[]; skipped: SkippedFile[] } {
  return listSourceNotes(noteSources(paths, opts.config), opts);
}

/**
 * The file behind an index path, and the folder its real path must stay in. A project path must lie in one of the
 * project's note sources (the index never names other project files). Throws PATH_OUTSIDE_VAULT for escapes.
 */
export function noteFileFor(paths: VaultPaths, path: string, cfg?: K0Config): { abs: string; root: string; boundary: string } {
  if (!isProjectNotePath(path)) return { abs: safeJoin(paths.notesRoot, path), root: paths.notesRoot, boundary: vaultBoundary(paths) };
  const rel = path.slice(PROJECT_PATH_PREFIX.length);
  const abs = safeJoin(paths.projectRoot, rel);
  const source = noteSources(paths, cfg).find((s) => s.prefix && isInsidePath(abs, s.root));
  if (!source) throw new K0Error('PATH_OUTSIDE_VAULT', `${path} is not in one of the project's note folders`);
  return { abs, root: source.root, boundary: source.boundary };
}

/** `noteFileFor` plus the real path, refused when a symlink leads outside the note's boundary. */
export function resolveNoteFile(paths: VaultPaths, path: string, cfg?: K0Config): { abs: string; real: string } {
  return realNoteFile(path, noteFileFor(paths, path, cfg));
}

/** The second half of resolveNoteFile, for a caller that already has `noteFileFor`'s answer. */
export function realNoteFile(path: string, file: { abs: string; root: string; boundary: string }): { abs: string; real: string } {
  const { abs, root, boundary } = file;
  let real: string;
  let rootReal: string;
  let boundaryReal: string;
  try {
    real = realpathSync.native(abs);
    rootReal = realpathSync.native(root);
    boundaryReal = realpathSync.native(boundary);
  } catch {
    throw new K0Error('NOTE_NOT_FOUND', `note ${path} is no longer on disk`);
  }
  // The walker's own test: inside the project, and not into .git/, .env, node_modules… (see noteFiles.ts).
  const why = real === boundaryReal ? 'is the project folder' : linkRefusal(real, rootReal, boundaryReal, false);
  if (why) throw new K0Error('PATH_OUTSIDE_VAULT', `note ${path} ${why}`);
  return { abs, real };
}

export { NOT_REGULAR, readRegularFile } from './regularFile';

/** The text of the note at an index path, through the same checks as every other reader. */
export function readNoteText(paths: VaultPaths, path: string, maxBytes?: number): string {
  const { real } = resolveNoteFile(paths, path);
  return readRegularFile(real, maxBytes).toString('utf8');
}
