import path from 'node:path';
import { K0Error } from '../errors';

/**
 * Paths people hand us, normalised at the entry points so a Windows habit works everywhere: `--vault` (CLI and
 * MCP server), the bound vault in `.k0maru/config.json` (committed by a teammate on another OS), guard `in:` /
 * `except:` globs, note links and file lists. Pure and parameterised by platform, so the Windows semantics are
 * unit-tested on any machine with `path.win32`.
 */

/** `C:\x`, `C:/x`, `c:` — a drive-letter path. */
export const DRIVE_PATH = /^[A-Za-z]:([\\/]|$)/;

/**
 * A path inside the project, as the index, git and the guard spell it: `/` separators (git on Windows prints `/`
 * too, but a person or an ADR written on Windows may use `\`), no leading `./`, no doubled or trailing slashes.
 * Backslash is taken as a separator, never as a glob escape: in file paths people write, it is one.
 */
export function toProjectPath(p: string): string {
  return p.trim().replace(/\\/g, '/').replace(/\/{2,}/g, '/').replace(/^(\.\/)+/, '').replace(/(.)\/$/, '$1');
}

/**
 * An absolute path for a user-given one (`--vault`, config `vault`), resolved against `base`. On Windows:
 * drive letters with either slash, UNC shares, and Git Bash's `/c/Users/…` spelling. Elsewhere: a relative path
 * written with `\` (`..\notes` in a committed config) uses `/`; a drive-letter path cannot mean anything on this
 * machine and is refused with a coded error rather than read as a file name starting with `C:`.
 */
export function resolveUserPath(input: string, base: string, platform: NodeJS.Platform = process.platform): string {
  let p = input.trim().replace(/^(["'])(.*)\1$/, '$2');
  if (!p) throw new K0Error('INVALID_ARGUMENT', 'an empty path was given');
  if (p.includes('\0')) throw new K0Error('INVALID_ARGUMENT', 'a path contains a NUL byte');
  if (platform === 'win32') {
    const gitBash = /^\/([A-Za-z])(\/|$)/.exec(p);
    if (gitBash) p = `${gitBash[1].toUpperCase()}:\\${p.slice(3)}`;
    return path.win32.resolve(base, p);
  }
  if (DRIVE_PATH.test(p) || p.startsWith('\\\\')) {
    throw new K0Error('INVALID_ARGUMENT', `'${input}' is a Windows path; on ${platform} give the folder as a ${platform} path (relative paths with \\ work everywhere)`);
  }
  return path.posix.resolve(base, p.replace(/\\/g, '/'));
}
