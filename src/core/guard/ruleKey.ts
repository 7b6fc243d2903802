import type { PatternSpec } from './types';

/**
 * Same pattern and scope: what makes an explicit rule and an inferred one duplicates (inferred.ts when it infers,
 * inferredPolicy.ts at check time). A file of its own so the hook's check path does not load the inference code
 * (~50 KB of the bundle) just for this.
 */
export function ruleKey(p: PatternSpec, include: string[], exclude: string[], when?: PatternSpec): string {
  return JSON.stringify([p.type, p.source, p.ignoreCase, [...include].sort(), [...exclude].sort(), when ? [when.type, when.source, when.ignoreCase] : null]);
}
