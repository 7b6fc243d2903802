import { listNoteFiles, type NoteFile, type SkippedFile } from '../vault/noteFiles';

export type { SkippedFile } from '../vault/noteFiles';

/** A note with the one stat the scanner's mtime/size tier compares. */
export interface WalkEntry extends NoteFile {
  stat: NonNullable<NoteFile['stat']>;
}

export interface WalkOptions {
  exclude?: string[];
  /** Symlinks are followed only to targets inside this folder (default: the walk root). */
  boundary?: string;
}

/** The notes under one folder with a stat each: the rule of src/core/vault/noteFiles.ts, nothing of its own. */
export function walkMarkdown(root: string, opts: WalkOptions = {}): { files: WalkEntry[]; skipped: SkippedFile[] } {
  const r = listNoteFiles(root, { exclude: opts.exclude, boundary: opts.boundary, stat: true });
  return { files: r.files as WalkEntry[], skipped: r.skipped };
}
