// The closed list of codes is in src/shared/errorCodes.ts (the console webview names them too).
import { ERROR_CODES, type ErrorCode } from '../shared/errorCodes';

export { ERROR_CODES, type ErrorCode };

export class K0Error extends Error {
  override readonly name = 'K0Error';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function isK0Error(err: unknown): err is K0Error {
  return err instanceof K0Error;
}

/** Wraps anything thrown into a K0Error so adapters only ever deal with one shape. */
export function toK0Error(err: unknown): K0Error {
  if (err instanceof K0Error) return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string' && ['EACCES', 'EPERM', 'ENOSPC', 'EROFS', 'EISDIR', 'ENOENT'].includes(e.code)) {
    return new K0Error('IO_ERROR', e.message, { errno: e.code });
  }
  return new K0Error('INTERNAL', e instanceof Error ? e.message : String(err));
}
