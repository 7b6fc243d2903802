// The index side of the core the extension uses (the project host: scans and recall; loadout, what the views read),
// built as its own bundle (dist/extensionCore.js) and required on the first scan. dist/extension.js stays a few
// KB, so activate() never pays for SQLite, markdown-it or YAML. The guard (dist/extensionGuard.js, ./coreGuard.ts)
// and the vault-writing tools (dist/extensionTools.js, ./coreTools.ts) are separate bundles: the first load,
// which blocks the extension host's event loop, compiles only what that moment needs (measured: one 2.3 MB
// bundle took 55-97 ms in the test host; the index part alone ~30 ms, the guard part ~21 ms in plain node).
//
// Inside the bundle each use case is also initialised on its first call: `require()` of a module makes esbuild wrap
// it in a lazy initialiser, so loading the bundle only compiles it instead of also running every module's
// top-level code.
import type * as Paths from '../core/vault/paths';
import type * as Errors from '../core/errors';
import type * as Offload from '../core/offload';
import type * as Loadout from '../core/loadout/loadout';
import type * as Tiers from '../core/index/tiers';
import type * as AdrNotes from '../core/index/adrNotes';
import type * as Host from '../core/host';
import type * as LedgerNodes from '../core/offload/ledger';
import type * as Stale from '../core/stale';
import type * as Git from '../core/git/run';
import type PicomatchFn from 'picomatch';

/* eslint-disable @typescript-eslint/no-require-imports */
export const pathsForProject: typeof Paths.pathsForProject = (...a) => (require('../core/vault/paths') as typeof Paths).pathsForProject(...a);
export const toK0Error: typeof Errors.toK0Error = (...a) => (require('../core/errors') as typeof Errors).toK0Error(...a);
export const findNodeFile: typeof Offload.findNodeFile = (...a) => (require('../core/offload/store') as typeof Offload).findNodeFile(...a);
export const getProjectLoadout: typeof Loadout.getProjectLoadout = (...a) => (require('../core/loadout/loadout') as typeof Loadout).getProjectLoadout(...a);
export const isRetiredStatus: typeof Tiers.isRetiredStatus = (...a) => (require('../core/index/tiers') as typeof Tiers).isRetiredStatus(...a);
export const listAdrNotes: typeof AdrNotes.listAdrNotes = (...a) => (require('../core/index/adrNotes') as typeof AdrNotes).listAdrNotes(...a);
export const readLedgerNodes: typeof LedgerNodes.readLedgerNodes = (...a) => (require('../core/offload/ledger') as typeof LedgerNodes).readLedgerNodes(...a);
// Stale memory (issue #18): what the sidebar's Stale group lists, and the two actions on a stale note.
export const listStale: typeof Stale.listStale = (...a) => (require('../core/stale') as typeof Stale).listStale(...a);
export const stalenessStatus: typeof Stale.stalenessStatus = (...a) => (require('../core/stale') as typeof Stale).stalenessStatus(...a);
export const verifyNotes: typeof Stale.verifyNotes = (...a) => (require('../core/stale') as typeof Stale).verifyNotes(...a);
/** The one hardened way to run git ("Show Changes Since This Note" reads the note's base with it). */
export const runGit: typeof Git.runGit = (...a) => (require('../core/git/run') as typeof Git).runGit(...a);
/** The flags every `git diff` we run carries (no external diff drivers, no textconv, no submodules). */
export const gitDiffSafe = (): string[] => (require('../core/git/run') as typeof Git).GIT_DIFF_SAFE;
export const picomatch = ((...a: Parameters<typeof PicomatchFn>) => (require('picomatch') as typeof PicomatchFn)(...a)) as typeof PicomatchFn;
/** The project's one long-lived host (scans, vectors, the recall policy), as the MCP server and `k0maru ui` run it. */
export const createProjectHost = (...a: ConstructorParameters<typeof Host.ProjectHost>): Host.ProjectHost => new (require('../core/host') as typeof Host).ProjectHost(...a);
