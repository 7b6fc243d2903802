import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The errno-style code readRegularFile throws for anything that is not a regular file. */
export const NOT_REGULAR = 'ENOTREG';

/**
 * Reads a file that must be a regular file, without ever blocking on a FIFO or device: opened with O_NONBLOCK (a
 * FIFO opens at once instead of waiting for a writer), then fstat decides before any read. At most `maxBytes`
 * (default: all) are returned. Errors keep their errno code; a non-regular file is code ENOTREG. Every file the
 * product reads from a project (notes, config.json, AGENTS.md, package.json…) is read through here: a cloned
 * repository can carry a FIFO under any of those names.
 */
export function readRegularFile(abs: string, maxBytes = Infinity): Buffer {
  const fd = openSync(abs, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      const err = new Error(`${abs} is not a regular file`) as NodeJS.ErrnoException;
      err.code = NOT_REGULAR;
      throw err;
    }
    const want = Math.min(st.size, maxBytes);
    const buf = Buffer.allocUnsafe(want);
    let n = 0;
    while (n < want) {
      const got = readSync(fd, buf, n, want - n, n);
      if (got === 0) break; // truncated while reading
      n += got;
    }
    return n === want ? buf : buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
