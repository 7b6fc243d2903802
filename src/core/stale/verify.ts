import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Project } from '../project';
import { K0Error, isK0Error } from '../errors';
import { runGit } from '../git/run';
import { writeFileAtomic } from '../fsutil/atomicWrite';
import { setFrontmatterFields } from '../flush/frontmatterEdit';
import { resolveNoteRef, VaultListing } from '../flush/resolveNote';
import { isInsidePath } from '../vault/noteFiles';
import { resolveNoteFile, PROJECT_PATH_PREFIX } from '../vault/noteSources';
import { locateRepo } from './gitHead';

/**
 * `k0maru verify NOTE…` and the editor's "Mark verified": records that a person checked the notes against the code
 * by writing `verified_at: <full commit hash>` (HEAD unless `commit` is given) into each note's frontmatter —
 * atomically, every other byte kept — then rescans, so every surface sees the note fresh at once.
 */

/** An index path for what a person typed: an index path, a file path (from `cwd` or the project), or a title. */
export function resolveNotePath(project: Project, ref: string, cwd = project.paths.projectRoot): string {
  const trimmed = ref.trim();
  if (!trimmed) throw new K0Error('INVALID_ARGUMENT', 'an empty note reference was given');
  const known = (p: string) => project.index.get('SELECT path FROM documents WHERE path = ?', [p])?.path as string | undefined;
  const direct = known(trimmed) ?? known(`${trimmed}.md`);
  if (direct) return direct;
  for (const base of [cwd, project.paths.projectRoot]) {
    const abs = isAbsolute(trimmed) ? trimmed : resolve(base, trimmed);
    if (!existsSync(abs)) continue;
    const root = resolve(project.paths.notesRoot);
    if (isInsidePath(abs, root)) {
      const hit = known(relative(root, abs).split(sep).join('/'));
      if (hit) return hit;
    }
    const hit = known(PROJECT_PATH_PREFIX + relative(project.paths.projectRoot, abs).split(sep).join('/'));
    if (hit) return hit;
  }
  try {
    return resolveNoteRef(VaultListing.of(project.paths), trimmed);
  } catch (err) {
    if (isK0Error(err) && err.code === 'NOTE_NOT_FOUND') throw new K0Error('NOTE_NOT_FOUND', `no note matches "${ref}" (tried index path, file path, file name and title)`, { ref });
    throw err;
  }
}

export async function verifyNotes(project: Project, notes: string[], opts: { commit?: string; cwd?: string } = {}): Promise<{ path: string; verifiedAt: string }[]> {
  if (!notes.length) throw new K0Error('INVALID_ARGUMENT', 'name at least one note to verify');
  const repo = locateRepo(project.paths.projectRoot);
  if (!repo) throw new K0Error('NOT_A_GIT_REPO', `${project.paths.projectRoot} is not inside a git repository: there is no commit to verify against`);
  const wanted = opts.commit?.trim() || 'HEAD';
  if (wanted.startsWith('-')) throw new K0Error('INVALID_ARGUMENT', `not a commit: ${wanted}`);
  let sha: string;
  try {
    sha = (await runGit(repo.top, ['rev-parse', '--verify', '--quiet', `${wanted}^{commit}`])).trim();
  } catch {
    throw new K0Error('INVALID_ARGUMENT', `not a commit in this repository: ${wanted}`);
  }
  // Resolve every reference before writing anything: one bad name leaves every note as it was.
  const paths = [...new Set(notes.map((n) => resolveNotePath(project, n, opts.cwd)))];
  const out: { path: string; verifiedAt: string }[] = [];
  for (const p of paths) {
    const { abs } = resolveNoteFile(project.paths, p, project.config);
    const raw = readFileSync(abs, 'utf8');
    const edited = setFrontmatterFields(raw, { verified_at: sha }, p);
    if (edited !== raw) writeFileAtomic(abs, edited);
    out.push({ path: p, verifiedAt: sha });
  }
  await project.scan();
  return out;
}
