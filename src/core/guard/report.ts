import type { GuardResult, Violation } from './types';

/** Text report in the seed's shape; agents read it from the hook's stderr and act on the remediation. */
export function renderGuardReport(r: GuardResult): string {
  const ms = `<${Math.max(1, Math.ceil(r.stats.ms))}ms`;
  const scope = `${r.stats.rules} rule(s) from ${r.stats.adrs} ADR(s), ${r.stats.files} file(s), ${r.stats.addedLines} added line(s)`;
  const out: string[] = [];
  const errors = r.violations.filter((v) => v.severity === 'error' || r.strict);
  const advisory = r.violations.filter((v) => v.severity === 'warning' && !r.strict);
  if (!r.ok) {
    out.push(`❌ Living ADR Guard Failure: ${errors.length} violation${errors.length === 1 ? '' : 's'} detected (${ms})`);
    for (const v of errors) out.push(...item(v, 'violates'));
  } else {
    out.push(`✅ Living ADR Guard: no violations — ${scope} (${ms})`);
  }
  if (advisory.length) {
    out.push(`⚠️ ${advisory.length} advisory warning${advisory.length === 1 ? '' : 's'} (blocking only with --strict):`);
    for (const v of advisory) out.push(...item(v, 'matches advisory'));
  }
  if (!r.ok) out.push(`Checked ${scope}.`);
  if (r.diagnostics.length) {
    out.push(`Rule diagnostics (${r.diagnostics.length}):`);
    for (const d of r.diagnostics) out.push(`- ${d.adrPath}:${d.line}: ${d.message} [${d.code}]`);
  }
  return out.join('\n');
}

function item(v: Violation, verb: string): string[] {
  const match = v.match.length > 80 ? `${v.match.slice(0, 77)}...` : v.match;
  const lines = [`- [${v.ruleId}] ${v.path}:${v.line}: '${match}' ${verb} invariant '${v.rule}'.`];
  if (v.remediation) lines.push(`  Remediation: ${v.remediation}`);
  if (v.inferred) lines.push(`  Inferred from ${v.adrPath}:${v.adrLine}: "${v.sentence}"`);
  lines.push(`  Reference: [[${v.adrPath}]]`);
  return lines;
}

/** The JSON shape of `--json` and the MCP tool's structured content. */
export function guardResultJson(r: GuardResult): Record<string, unknown> {
  return {
    ok: r.ok,
    strict: r.strict,
    source: r.source,
    violations: r.violations,
    diagnostics: r.diagnostics,
    stats: { ...r.stats, ms: Math.round(r.stats.ms * 100) / 100 },
  };
}
