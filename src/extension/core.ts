// The part of the core the extension uses, built as its own bundle (dist/extensionCore.js) and required on the
// first scan, check or command. Keeping it out of dist/extension.js means VS Code parses a few KB at activation
// instead of ~1 MB of SQLite, markdown-it, YAML and tree-sitter glue code.
export { openProject } from '../core/project';
export { pathsForProject } from '../core/vault/paths';
export { toK0Error } from '../core/errors';
export { guardCheck } from '../core/guard/check';
export { loadVaultRules } from '../core/guard/ruleStore';
export { flushNote } from '../core/flush';
export { distillSkill } from '../core/distill/distill';
export { offloadLog, findNodeFile, LEDGER_FILE } from '../core/offload';
export { recall } from '../core/search/recall';
export { getProjectLoadout } from '../core/loadout/loadout';
export { installIntegrations } from '../core/install';
export { initVault } from '../core/vault/init';
export { isRetiredStatus } from '../core/index/tiers';
export { guardSourceForFile } from './guardSource';
export { readLedgerNodes } from './ledgerNodes';
export { default as picomatch } from 'picomatch';
