/** On its own (no zod) so the extension's activation bundle can name it without loading the schemas. */
export const PROTOCOL_VERSION = 1;
