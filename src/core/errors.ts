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

/**
 * By shape, not by class: the extension loads the core as several bundles (each with its own copy of this class),
 * and an error thrown in one must keep its code when another one catches it.
 */
export function isK0Error(err: unknown): err is K0Error {
  if (err instanceof K0Error) return true;
  const e = err as { name?: unknown; code?: unknown } | null;
  return err instanceof Error && e!.name === 'K0Error' && (ERROR_CODES as readonly unknown[]).includes(e!.code);
}

/** Wraps anything thrown into a K0Error so adapters only ever deal with one shape. */
export function toK0Error(err: unknown): K0Error {
  if (isK0Error(err)) return err;
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e.code === 'string' && ['EACCES', 'EPERM', 'ENOSPC', 'EROFS', 'EISDIR', 'ENOENT'].includes(e.code)) {
    return new K0Error('IO_ERROR', e.message, { errno: e.code });
  }
  return new K0Error('INTERNAL', e instanceof Error ? e.message : String(err));
}
