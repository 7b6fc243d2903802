import { K0Error } from '../errors';
import { readConfig, type K0Config, type VaultPaths } from '../vault/paths';
import { ruleKey } from './ruleKey';
import type { GuardRule, InferredSetting } from './types';

/**
 * How inferred rules apply, decided at check time (compiled rules are cached by note content, so a vault
 * setting must never be baked into them). Order: the ADR's own `guard-inferred:` frontmatter, then the vault's
 * `.k0maru/config.json` `{"guard": {"inferred": "warn" | "block" | "off"}}`, then `warn`.
 */

const VALUES: readonly InferredSetting[] = ['warn', 'block', 'off'];

/** The vault's setting; a value outside the list is a usage error (the hook fails closed and says why). */
export function vaultInferredSetting(paths: VaultPaths | undefined, config?: K0Config): InferredSetting {
  if (!paths) return 'warn';
  const v = (config ?? readConfig(paths.k0Dir)).guard?.inferred;
  if (v === undefined) return 'warn';
  if (typeof v === 'string' && (VALUES as readonly string[]).includes(v)) return v as InferredSetting;
  throw new K0Error('INVALID_ARGUMENT', `${paths.configPath}: guard.inferred must be one of ${VALUES.join(', ')} (got ${JSON.stringify(v)})`);
}

/**
 * Drops inferred rules that are off or that an explicit rule (any ADR) already states with the same pattern and
 * scope — once "Write as an explicit rule" wrote one, the guess must not fire beside it — and gives the rest
 * their severity.
 */
export function applyInferredPolicy(rules: GuardRule[], vault: InferredSetting): GuardRule[] {
  if (!rules.some((r) => r.origin === 'inferred')) return rules;
  const explicit = new Set(rules.filter((r) => r.origin !== 'inferred').map((r) => ruleKey(r.pattern, r.include, r.exclude, r.when)));
  const out: GuardRule[] = [];
  for (const r of rules) {
    if (r.origin !== 'inferred') {
      out.push(r);
      continue;
    }
    const setting = r.adrSetting ?? vault;
    if (setting === 'off' || explicit.has(ruleKey(r.pattern, r.include, r.exclude, r.when))) continue;
    out.push({ ...r, severity: setting === 'block' ? 'error' : 'warning' });
  }
  return out;
}
