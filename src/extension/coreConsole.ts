// The console's host side (dist/extensionConsole.js): the typed protocol (zod), the dispatcher and the console use
// cases. Loaded when a console page first sends a message, never at activation: zod alone is ~0.75 MB to compile.
// See ./core.ts for why the core is split into bundles.
export { dispatchClientMessage } from '../core/console/dispatch';
export { createConsoleService } from '../core/console/service';
export { LineCheckpoints } from '../core/console/offloads';
export { K0Error } from '../core/errors';
export { resolveIndexedNote } from '../core/console/note';
