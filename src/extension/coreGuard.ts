// The guard side of the core the extension uses (dist/extensionGuard.js): rules, checks and this file's git
// source. Loaded on the first check, a few turns after activation. See ./core.ts for why the core is split.
//
// Inside the bundle each use case is also initialised on its first call: `require()` of a module makes esbuild wrap
// it in a lazy initialiser, so loading the bundle only compiles it instead of also running every module's
// top-level code.
import type * as Check from '../core/guard/check';
import type * as RuleStore from '../core/guard/ruleStore';
import type * as GuardSource from './guardSource';
import type * as ExplicitRule from '../core/guard/explicitRule';
import type * as InferredPolicy from '../core/guard/inferredPolicy';
import type * as RuleCounts from '../core/guard/ruleCounts';

/* eslint-disable @typescript-eslint/no-require-imports */
export const guardCheck: typeof Check.guardCheck = (...a) => (require('../core/guard/check') as typeof Check).guardCheck(...a);
export const loadVaultRules: typeof RuleStore.loadVaultRules = (...a) => (require('../core/guard/ruleStore') as typeof RuleStore).loadVaultRules(...a);
export const guardSourceForFile: typeof GuardSource.guardSourceForFile = (...a) => (require('./guardSource') as typeof GuardSource).guardSourceForFile(...a);
export const explicitRuleInsertion: typeof ExplicitRule.explicitRuleInsertion = (...a) => (require('../core/guard/explicitRule') as typeof ExplicitRule).explicitRuleInsertion(...a);
export const ruleCounts: typeof RuleCounts.ruleCounts = (...a) => (require('../core/guard/ruleCounts') as typeof RuleCounts).ruleCounts(...a);
export const vaultInferredSetting: typeof InferredPolicy.vaultInferredSetting = (...a) => (require('../core/guard/inferredPolicy') as typeof InferredPolicy).vaultInferredSetting(...a);
