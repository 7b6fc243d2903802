// The vault-writing tools the palette commands call (dist/extensionTools.js): flush, offload, install, init.
// The distiller (zod and its schemas, ~0.75 MB) is its own bundle, ./coreDistill.ts. Loaded on the first such command. See ./core.ts for why the core is split.
//
// Inside the bundle each use case is also initialised on its first call: `require()` of a module makes esbuild wrap
// it in a lazy initialiser, so loading the bundle only compiles it instead of also running every module's
// top-level code.
import type * as Flush from '../core/flush';
import type * as Offload from '../core/offload';
import type * as Install from '../core/install';
import type * as Init from '../core/vault/init';

/* eslint-disable @typescript-eslint/no-require-imports */
export const flushNote: typeof Flush.flushNote = (...a) => (require('../core/flush') as typeof Flush).flushNote(...a);
export const droppedRules: typeof Flush.droppedRules = (...a) => (require('../core/flush') as typeof Flush).droppedRules(...a);
export const describeDropped: typeof Flush.describeDropped = (...a) => (require('../core/flush') as typeof Flush).describeDropped(...a);
export const decisionTemplate: typeof Flush.decisionTemplate = (...a) => (require('../core/flush') as typeof Flush).decisionTemplate(...a);
export const offloadLog: typeof Offload.offloadLog = (...a) => (require('../core/offload') as typeof Offload).offloadLog(...a);
export const installIntegrations: typeof Install.installIntegrations = (...a) => (require('../core/install') as typeof Install).installIntegrations(...a);
export const initVault: typeof Init.initVault = (...a) => (require('../core/vault/init') as typeof Init).initVault(...a);
