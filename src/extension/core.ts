// The part of the core the extension uses, built as its own bundle (dist/extensionCore.js) and required on the
// first scan. Keeping it out of dist/extension.js means VS Code parses a few KB at activation instead of ~1 MB
// of SQLite, markdown-it and YAML code.
export { openProject } from '../core/project';
export { pathsForProject } from '../core/vault/paths';
export { toK0Error } from '../core/errors';
