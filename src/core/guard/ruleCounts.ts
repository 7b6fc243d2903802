import type { AdrRules } from './types';

export interface RuleCounts {
  /** Rules of active ADRs. */
  rules: number;
  /** Active ADRs that hold at least one rule: the ADRs the guard enforces. */
  adrs: number;
  /** Rule sources whose rules do not apply (superseded, deprecated, rejected…). */
  inactiveAdrs: number;
}

/**
 * The one count of what the guard enforces, said the same by the CLI report, the editor's log and the
 * Architecture view: active rules, and the active ADRs they come from. A superseded ADR is never counted as
 * active, and an ADR whose guard section holds no rule is not one the guard enforces.
 */
export function ruleCounts(adrs: readonly (Pick<AdrRules, 'active'> & { rules: readonly unknown[] })[]): RuleCounts {
  let rules = 0;
  let active = 0;
  let inactive = 0;
  for (const a of adrs) {
    if (!a.active) inactive++;
    else if (a.rules.length) {
      active++;
      rules += a.rules.length;
    }
  }
  return { rules, adrs: active, inactiveAdrs: inactive };
}
