/**
 * Every failure the product reports carries one code from this closed list, so the CLI (exit codes),
 * the MCP server (isError results) and the editor (notifications) can react without parsing messages.
 * Add a code here, never invent one at a call site. It lives in src/shared so the console webview, which
 * imports nothing else, can name the codes too.
 */
export const ERROR_CODES = [
  'INVALID_ARGUMENT', // the caller passed something we cannot use
  'VAULT_NOT_FOUND', // no vault at the path given or found by walking up
  'PATH_OUTSIDE_VAULT', // a path or name that would escape the vault (../, absolute, NUL)
  'NOTE_NOT_FOUND', // a note / ADR reference that resolves to nothing
  'NODE_NOT_FOUND', // an offload node id that does not exist
  'FILE_TOO_LARGE', // over a documented size limit
  'INDEX_BUSY', // another process held the index lock for longer than we wait
  'INDEX_CORRUPT', // the index could not be opened; it is rebuilt from Markdown
  'NOT_A_GIT_REPO',
  'GIT_FAILED',
  'RULE_INVALID', // a malformed guard rule in an ADR
  'MODEL_UNAVAILABLE', // the embedding model is missing or broken; BM25 still answers
  'WRITE_CONFLICT', // a concurrent writer won; nothing was written
  'IO_ERROR',
  'CANCELLED', // the caller withdrew the request (an MCP cancellation, a closing host); nothing was answered
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
