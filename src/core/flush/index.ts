export { flushNote, type FlushOptions, type FlushOutcome, type FlushResult } from './flushNote';
export { MAX_CONTENT_BYTES, type FlushInput } from './render';
export { resolveNoteRef, parseAdrId, VaultListing } from './resolveNote';
export { setFrontmatterFields } from './frontmatterEdit';
export { droppedRules, describeDropped, decisionTemplate, type DroppedRule } from './droppedRules';
