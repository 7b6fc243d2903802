// The part of the core the extension uses, built as its own bundle (dist/extensionCore.js) and required on the
// first scan, check or command: dist/extension.js stays a few KB and activate() never pays for SQLite,
// markdown-it, YAML, zod or the guard engine.
//
// Inside this bundle each use case is also loaded on its first call: `require()` of a module makes esbuild wrap it
// in a lazy initialiser, so loading the bundle only compiles it (~40 ms for 2 MB) instead of also running every
// module's top-level code (zod schemas, WASM glue: another ~55 ms measured), and the guard on save never
// initialises the distiller.
import type * as Project from '../core/project';
import type * as Paths from '../core/vault/paths';
import type * as Errors from '../core/errors';
import type * as Check from '../core/guard/check';
import type * as RuleStore from '../core/guard/ruleStore';
import type * as Flush from '../core/flush';
import type * as Distill from '../core/distill/distill';
import type * as Offload from '../core/offload';
import type * as Recall from '../core/search/recall';
import type * as Loadout from '../core/loadout/loadout';
import type * as Install from '../core/install';
import type * as Init from '../core/vault/init';
import type * as Tiers from '../core/index/tiers';
import type * as GuardSource from './guardSource';
import type * as LedgerNodes from './ledgerNodes';
import type PicomatchFn from 'picomatch';

/* eslint-disable @typescript-eslint/no-require-imports */
export const openProject: typeof Project.openProject = (...a) => (require('../core/project') as typeof Project).openProject(...a);
export const pathsForProject: typeof Paths.pathsForProject = (...a) => (require('../core/vault/paths') as typeof Paths).pathsForProject(...a);
export const toK0Error: typeof Errors.toK0Error = (...a) => (require('../core/errors') as typeof Errors).toK0Error(...a);
export const guardCheck: typeof Check.guardCheck = (...a) => (require('../core/guard/check') as typeof Check).guardCheck(...a);
export const loadVaultRules: typeof RuleStore.loadVaultRules = (...a) => (require('../core/guard/ruleStore') as typeof RuleStore).loadVaultRules(...a);
export const flushNote: typeof Flush.flushNote = (...a) => (require('../core/flush') as typeof Flush).flushNote(...a);
export const distillSkill: typeof Distill.distillSkill = (...a) => (require('../core/distill/distill') as typeof Distill).distillSkill(...a);
export const offloadLog: typeof Offload.offloadLog = (...a) => (require('../core/offload') as typeof Offload).offloadLog(...a);
export const findNodeFile: typeof Offload.findNodeFile = (...a) => (require('../core/offload/store') as typeof Offload).findNodeFile(...a);
export const recall: typeof Recall.recall = (...a) => (require('../core/search/recall') as typeof Recall).recall(...a);
export const getProjectLoadout: typeof Loadout.getProjectLoadout = (...a) => (require('../core/loadout/loadout') as typeof Loadout).getProjectLoadout(...a);
export const installIntegrations: typeof Install.installIntegrations = (...a) => (require('../core/install') as typeof Install).installIntegrations(...a);
export const initVault: typeof Init.initVault = (...a) => (require('../core/vault/init') as typeof Init).initVault(...a);
export const isRetiredStatus: typeof Tiers.isRetiredStatus = (...a) => (require('../core/index/tiers') as typeof Tiers).isRetiredStatus(...a);
export const guardSourceForFile: typeof GuardSource.guardSourceForFile = (...a) => (require('./guardSource') as typeof GuardSource).guardSourceForFile(...a);
export const readLedgerNodes: typeof LedgerNodes.readLedgerNodes = (...a) => (require('./ledgerNodes') as typeof LedgerNodes).readLedgerNodes(...a);
export const picomatch = ((...a: Parameters<typeof PicomatchFn>) => (require('picomatch') as typeof PicomatchFn)(...a)) as typeof PicomatchFn;
