import { existsSync } from 'node:fs';
import { K0Error } from '../errors';
import { locateVault, readConfig } from '../vault/paths';
import { git, repoRoot } from './diffSource';
import { explicitRuleLine } from './explicitRule';
import { applyInferredPolicy, vaultInferredSetting } from './inferredPolicy';
import { loadVaultRules } from './ruleStore';
import { unmatchedScopes } from './scopeFiles';
import type { AdrRules, GuardDiagnostic, GuardRule, InferredSetting } from './types';
import { ruleCounts } from './ruleCounts';

/**
 * `k0maru guard --explain-rules [ADR]`: every rule the guard read — explicit and inferred — with its ADR line,
 * kind, the severity it has now (after the ADR / vault inferred setting), scope, pattern or trigger, and for an
 * inferred rule its sentence and the explicit line that would replace it. So a person can see exactly what
 * will be enforced before a commit is refused.
 */

export interface ExplainedRule {
  id: string;
  line: number;
  origin: 'explicit' | 'inferred';
  kind: GuardRule['kind'];
  /** What a match reports now; `off` = inferred but turned off (or an explicit rule states it already). */
  severity: 'error' | 'warning' | 'off';
  pattern: GuardRule['pattern'];
  when?: GuardRule['pattern'];
  window?: GuardRule['window'];
  include: string[];
  exclude: string[];
  langs: string[];
  context: GuardRule['context'];
  text: string;
  remediation?: string;
  sentence?: string;
  /** Inferred rules: the equivalent line in the explicit rule language. */
  explicit?: string;
}

export interface ExplainedAdr {
  adrId: string;
  adrPath: string;
  title: string;
  status?: string;
  active: boolean;
  rules: ExplainedRule[];
  diagnostics: GuardDiagnostic[];
}

export interface ExplainResult {
  inferredSetting: InferredSetting;
  adrs: ExplainedAdr[];
  /** Scopes that match no tracked file (empty outside a git repository). */
  scopeDiagnostics: GuardDiagnostic[];
}

export interface ExplainOptions {
  cwd?: string;
  vault?: string;
  env?: NodeJS.ProcessEnv;
  /** ADR id (frontmatter `id`), file name with or without `.md`, or vault-relative path; case-insensitive. */
  adr?: string;
}

export async function explainRules(opts: ExplainOptions = {}): Promise<ExplainResult> {
  const paths = locateVault({ vault: opts.vault, cwd: opts.cwd, env: opts.env });
  const config = readConfig(paths.k0Dir);
  const setting = vaultInferredSetting(paths, config);
  let adrs: AdrRules[] = existsSync(paths.notesRoot) ? (await loadVaultRules(paths, null, { config })).adrs : [];
  if (opts.adr) {
    const want = opts.adr.trim().toLowerCase().replace(/\\/g, '/');
    const hit = adrs.filter((a) => {
      const file = a.adrPath.slice(a.adrPath.lastIndexOf('/') + 1).toLowerCase();
      const p = a.adrPath.toLowerCase();
      return a.adrId.toLowerCase() === want || file === want || file === `${want}.md` || p === want || p.endsWith(`/${want}`);
    });
    if (!hit.length) throw new K0Error('NOTE_NOT_FOUND', `no ADR with rules matches '${opts.adr}' (give its id, file name or path)`);
    adrs = hit;
  }
  const all = adrs.flatMap((a) => (a.active ? a.rules : []));
  const live = new Map(applyInferredPolicy(all, setting).map((r) => [`${r.adrPath}\0${r.id}`, r]));
  const explained = adrs.map((a) => ({
    adrId: a.adrId,
    adrPath: a.adrPath,
    title: a.title,
    status: a.status,
    active: a.active,
    rules: a.rules.map((r) => explainRule(r, a.active ? live.get(`${a.adrPath}\0${r.id}`) : undefined)).sort((x, y) => x.line - y.line),
    diagnostics: a.diagnostics,
  }));
  return { inferredSetting: setting, adrs: explained, scopeDiagnostics: await scopeDiagnostics(paths.projectRoot, all) };
}

function explainRule(r: GuardRule, live: GuardRule | undefined): ExplainedRule {
  const inferred = r.origin === 'inferred';
  const severity = !live ? 'off' : (live.severity ?? (r.kind === 'warn' ? 'warning' : 'error'));
  return {
    id: r.id,
    line: r.line,
    origin: inferred ? 'inferred' : 'explicit',
    kind: r.kind,
    severity,
    pattern: r.pattern,
    ...(r.when ? { when: r.when, window: r.window } : {}),
    include: r.include,
    exclude: r.exclude,
    langs: r.langs,
    context: r.context,
    text: r.text,
    ...(r.remediation ? { remediation: r.remediation } : {}),
    ...(inferred ? { sentence: r.sentence, explicit: explicitRuleLine(r) } : {}),
  };
}

/** Scopes that match no file of the repository (scopeFiles.ts: `git ls-files -co --exclude-standard`). */
async function scopeDiagnostics(projectRoot: string, rules: GuardRule[]): Promise<GuardDiagnostic[]> {
  if (!rules.some((r) => r.include.length)) return [];
  let root: string;
  try {
    root = await repoRoot(projectRoot);
  } catch {
    return [];
  }
  return (await unmatchedScopes(root, rules)).diagnostics;
}

const fmtPattern = (p: GuardRule['pattern']) => (p.type === 'regex' ? `/${p.source}/${p.ignoreCase ? 'i' : ''}` : `\`${p.source}\`${p.ignoreCase ? ' (ignore case)' : ''}`);

export function renderExplain(r: ExplainResult): string {
  const out: string[] = [];
  const count = r.adrs.reduce((n, a) => n + a.rules.length, 0);
  const inferred = r.adrs.reduce((n, a) => n + a.rules.filter((x) => x.origin === 'inferred').length, 0);
  const applying = ruleCounts(r.adrs);
  out.push(`Living ADR Guard reads ${count} rule(s) (${inferred} inferred from prose; inferred rules: ${r.inferredSetting}) from ${r.adrs.length} ADR(s): ${applying.rules} active rule(s) in ${applying.adrs} ADR(s)${applying.inactiveAdrs ? `, ${applying.inactiveAdrs} superseded or retired ADR(s) whose rules do not apply` : ''}.`);
  for (const a of r.adrs) {
    out.push('', `${a.adrId} — ${a.title} (${a.adrPath})${a.active ? '' : ` — ${a.status ?? 'inactive'}: its rules do not apply`}`);
    if (!a.rules.length) out.push('  (no rules)');
    for (const x of a.rules) {
      out.push(`  ${a.adrPath}:${x.line} [${x.id}] ${x.origin} ${x.kind} → ${x.severity}`);
      out.push(`    ${x.when ? `trigger ${fmtPattern(x.when)}, requires ${fmtPattern(x.pattern)} (window ${x.window?.kind ?? 'statement'}${x.window && 'lines' in x.window ? ` ${x.window.lines}` : ''})` : `pattern ${fmtPattern(x.pattern)}`}; context ${x.context}`);
      out.push(`    scope: ${x.include.length ? x.include.join(', ') : 'all files'}${x.exclude.length ? `; except ${x.exclude.join(', ')}` : ''}${x.langs.length ? `; lang ${x.langs.join(', ')}` : ''}`);
      if (x.sentence) out.push(`    from: "${x.sentence}"`);
      if (x.explicit) out.push(`    explicit: ${x.explicit}`);
      if (x.remediation) out.push(`    remediation: ${x.remediation}`);
    }
    for (const d of a.diagnostics) out.push(`  ${d.adrPath}:${d.line}: ${d.message} [${d.code}]`);
  }
  if (r.scopeDiagnostics.length) {
    out.push('', 'Scopes that match no tracked file:');
    for (const d of r.scopeDiagnostics) out.push(`  ${d.adrPath}:${d.line}: ${d.message} [${d.code}]`);
  }
  return out.join('\n');
}
