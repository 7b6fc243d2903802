import type { OpenNoteResult } from '../../shared/protocol';
import { K0Error } from '../errors';
import type { Project } from '../project';
import { NOT_REGULAR, noteFileFor, readRegularFile, realNoteFile } from '../vault/noteSources';

/** A note page shows at most this much; a bigger note says so (the editor has the rest). */
export const MAX_NOTE_BYTES = 1024 * 1024;

/**
 * Where an indexed note really is. Only paths the index knows are opened — the console is a window on the vault's
 * notes, not on the file system — and the real path must stay in the notes root (a symlinked note pointing
 * elsewhere is refused). Both hosts go through here: the page's reader below and the editor's openNote.
 */
export function resolveIndexedNote(project: Pick<Project, 'index' | 'paths'>, path: string): { abs: string; real: string; id: number; title: string } {
  const file = noteFileFor(project.paths, path); // refuses escapes before the index is asked
  const row = project.index.get('SELECT id, title FROM documents WHERE path = ?', [path]);
  if (!row) throw new K0Error('NOTE_NOT_FOUND', `no indexed note at ${path}`);
  // Vault notes and the project's ADR folders (`:/docs/adr/…`), with the walker's symlink policy.
  const { abs, real } = realNoteFile(path, file);
  return { abs, real, id: Number(row.id), title: String(row.title) };
}

/** The Markdown of one indexed note for the page to render, with where its links lead. */
export function readNoteForPage(project: Pick<Project, 'index' | 'paths'>, path: string): OpenNoteResult {
  const note = resolveIndexedNote(project, path);
  // Never blocks: a note swapped for a FIFO after indexing is refused by fstat, never waited on.
  let bytes: Buffer;
  try {
    bytes = readRegularFile(note.real, MAX_NOTE_BYTES + 1);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === NOT_REGULAR) throw new K0Error('NOTE_NOT_FOUND', `note ${path} is not a regular file`);
    throw err;
  }
  // Where the note's links lead, so the page can make [[links]] open the notes they resolve to.
  const links = project.index
    .all('SELECT DISTINCT l.target, d.path FROM links l JOIN documents d ON d.id = l.to_doc WHERE l.from_doc = ? LIMIT 2000', [note.id])
    .map((r) => ({ target: String(r.target), path: String(r.path) }));
  const truncated = bytes.length > MAX_NOTE_BYTES;
  return { shown: 'page', path, title: note.title, markdown: bytes.subarray(0, MAX_NOTE_BYTES).toString('utf8'), truncated, links };
}
