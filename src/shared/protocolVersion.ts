/**
 * On its own (no zod) so the extension's activation bundle can name it without loading the schemas.
 * Raised when a message kind, method, event or required field is added (a page of the previous version would
 * reject it); an optional field alone does not raise it. 2: `status`, the `embeddingChanged` event and
 * SearchResult.effectiveModeLabel (issues #14, #18).
 */
export const PROTOCOL_VERSION = 2;
