import { closeSync, lstatSync, openSync, readdirSync, readSync, renameSync, rmSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The files SQLite (through node-sqlite3-wasm's VFS) touches for one index: the database, its rollback journal
 * and its lock directory. The VFS opens them by name and follows symlinks, so a cloned repository carrying
 * `.k0maru/index.db -> ~/other-app/data.sqlite` would have the next scan drop that application's tables. Before
 * every open we make sure each is what it should be (a regular file with one name, a real directory) or absent;
 * anything else is renamed aside. A rename moves the link itself: the target is never opened, read or written.
 */
export interface IndexFileReport {
  /** `what → where it was moved`, one line per entry that was not what it should be. */
  moved: string[];
}

type Kind = 'file' | 'dir';

/** Aside names all start with `index.db.corrupt-` so the `.gitignore` written by `k0maru init` covers them. */
export function asideName(indexPath: string, stamp: number, suffix = ''): string {
  return join(dirname(indexPath), `${basename(indexPath)}.corrupt-${stamp}${suffix}`);
}

function describe(st: Stats): string {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  if (st.isFile() && st.nlink > 1) return 'hardlink';
  return 'file';
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Moves aside every index file that is not a plain regular file (or, for the lock, a real directory). */
export function secureIndexFiles(indexPath: string, stamp = Date.now()): IndexFileReport {
  const entries: [string, string, Kind][] = [
    [indexPath, '', 'file'],
    [`${indexPath}-journal`, '-journal', 'file'],
    [`${indexPath}.lock`, '-lock', 'dir'],
  ];
  const moved: string[] = [];
  for (const [p, tag, want] of entries) {
    const st = lstatOrNull(p);
    if (!st) continue;
    const kind = describe(st);
    if (kind === want) continue;
    const aside = asideName(indexPath, stamp, `${tag}-${kind}`);
    try {
      renameSync(p, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // another process opening at once moved it first
      throw err;
    }
    const then = p === indexPath ? '; a fresh index is built from Markdown' : '';
    moved.push(`${basename(p)} was a ${kind}, not a ${want === 'file' ? 'regular file' : 'directory'}: moved to ${basename(aside)} without following it${then}`);
  }
  return { moved };
}

/**
 * A cheap look at the 100-byte header (no SQLite involved): the magic string, a power-of-two page size, a file
 * that holds whole pages, and — when the header's page count is valid — a file of exactly that many pages.
 * A file that fails this gets a full `PRAGMA quick_check` before use; one that passes is trusted until SQLite
 * itself reports corruption (a quick_check of a 5,000-note index costs ~130 ms, too much for every CLI call).
 */
export function headerLooksSound(indexPath: string): { ok: true; empty?: true } | { ok: false; reason: string } {
  const st = lstatOrNull(indexPath);
  if (!st) return { ok: true }; // absent: SQLite starts a fresh database
  if (st.size === 0) return { ok: true, empty: true }; // emptied (truncated): likewise, and the caller says so
  if (st.size < 100) return { ok: false, reason: `only ${st.size} bytes` };
  const head = Buffer.alloc(100);
  const fd = openSync(indexPath, 'r');
  try {
    readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1', 0, 16) !== 'SQLite format 3\0') return { ok: false, reason: 'no SQLite header' };
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return { ok: false, reason: `page size ${raw} is invalid` };
  if (st.size % pageSize !== 0) return { ok: false, reason: `${st.size} bytes is not a whole number of ${pageSize}-byte pages` };
  const pages = head.readUInt32BE(28);
  const validFor = head.readUInt32BE(92);
  const changeCounter = head.readUInt32BE(24);
  if (pages !== 0 && validFor === changeCounter && pages * pageSize !== st.size) {
    return { ok: false, reason: `header says ${pages} pages, the file holds ${st.size / pageSize}` };
  }
  return { ok: true };
}

/** Keeps the newest `keep` moved-aside copies of the index (regular files only: a moved link or folder stays for the owner to look at). */
export function pruneAsideCopies(indexPath: string, keep = 2): void {
  const dir = dirname(indexPath);
  const prefix = `${basename(indexPath)}.corrupt-`;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length)));
  } catch {
    return;
  }
  names.sort((a, b) => Number(b.slice(prefix.length)) - Number(a.slice(prefix.length)));
  for (const n of names.slice(keep)) {
    const p = join(dir, n);
    if (lstatOrNull(p)?.isFile()) rmSync(p, { force: true });
  }
}
