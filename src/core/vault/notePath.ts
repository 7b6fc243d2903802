import { join } from 'node:path';

/**
 * Index paths of notes read in place from the project's ADR folders start with `:/` (git's "from the top of the
 * working tree"): `:/docs/adr/0001-x.md`. Every other index path is vault-relative. See ./noteSources.ts.
 */
export const PROJECT_PATH_PREFIX = ':/';

/** Is this index path a note of a project folder (not of the vault)? */
export function isProjectNotePath(path: string): boolean {
  return path.startsWith(PROJECT_PATH_PREFIX);
}

/**
 * Where the file of an index path lies, by string work only: for editors that open a location. Anything that reads
 * the file goes through resolveNoteFile (./noteSources.ts), which also applies the symlink policy.
 */
export function noteFilePath(paths: { projectRoot: string; notesRoot: string }, indexPath: string): string {
  return isProjectNotePath(indexPath) ? join(paths.projectRoot, indexPath.slice(PROJECT_PATH_PREFIX.length)) : join(paths.notesRoot, indexPath);
}
