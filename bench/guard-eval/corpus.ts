// Corpus figures for issue 12: parse every Markdown file of the 380-ADR reference corpus once with the core
// rule parser and count how many yield inferred rules (and explicit ones, and diagnostics), plus parse time.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAdrRules } from '../../src/core/guard/ruleParser';
import { validateRegex } from '../../src/core/guard/pattern';

export const CORPUS = join(__dirname, '..', '..', '..', 'shared', 'corpus', 'adr-vault');

export interface CorpusFigures {
  corpus: string;
  files: number;
  activeAdrs: number;
  inactiveAdrs: number;
  adrsWithInferredRules: number;
  activeAdrsWithInferredRules: number;
  inferredRules: number;
  adrsWithExplicitRules: number;
  explicitRules: number;
  diagnostics: Record<string, number>;
  crashes: string[];
  parseMsTotal: number;
  slowestFile: { path: string; ms: number } | null;
  /** How an inferred rule was recognised; absent until the parser marks rules as inferred. */
  inferredFlag: string;
  /** Every inferred rule (first 300), for hand-checking: ADR path:line, kind, pattern, trigger, scope, sentence. */
  inferredList: Array<{ adr: string; line: number; active: boolean; kind: string; pattern: string; when?: string; include: string[]; sentence?: string }>;
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.toLowerCase().endsWith('.md')) out.push(p);
  }
  return out;
}

/** Whichever marker the parser uses for a rule inferred from prose (`origin: 'inferred'` or `inferred: true`). */
export function isInferredRule(rule: unknown): boolean {
  const r = rule as { origin?: unknown; inferred?: unknown; source?: unknown };
  return r.origin === 'inferred' || r.inferred === true || r.source === 'inferred';
}

export function corpusFigures(root = CORPUS): CorpusFigures | { corpus: string; missing: true } {
  if (!existsSync(root)) return { corpus: root, missing: true };
  const files = walk(root);
  const f: CorpusFigures = {
    corpus: root, files: files.length, activeAdrs: 0, inactiveAdrs: 0, adrsWithInferredRules: 0, activeAdrsWithInferredRules: 0,
    inferredRules: 0, adrsWithExplicitRules: 0, explicitRules: 0, diagnostics: {}, crashes: [], parseMsTotal: 0, slowestFile: null, inferredFlag: 'none seen', inferredList: [],
  };
  for (const abs of files) {
    const rel = relative(root, abs).split('\\').join('/');
    const raw = readFileSync(abs, 'utf8');
    const t0 = performance.now();
    let parsed;
    try {
      parsed = parseAdrRules(raw, rel, validateRegex);
    } catch (err) {
      f.crashes.push(`${rel}: ${(err as Error).message}`);
      continue;
    }
    const ms = performance.now() - t0;
    f.parseMsTotal += ms;
    if (!f.slowestFile || ms > f.slowestFile.ms) f.slowestFile = { path: rel, ms: Math.round(ms * 100) / 100 };
    if (parsed.active) f.activeAdrs++;
    else f.inactiveAdrs++;
    const inferred = parsed.rules.filter(isInferredRule);
    const explicit = parsed.rules.length - inferred.length;
    if (inferred.length) {
      f.adrsWithInferredRules++;
      if (parsed.active) f.activeAdrsWithInferredRules++;
      const r = inferred[0] as unknown as Record<string, unknown>;
      f.inferredFlag = r.origin === 'inferred' ? "rule.origin === 'inferred'" : r.inferred === true ? 'rule.inferred === true' : "rule.source === 'inferred'";
    }
    f.inferredRules += inferred.length;
    for (const r of inferred) {
      if (f.inferredList.length >= 300) break;
      const s = (r as unknown as { sentence?: string }).sentence;
      f.inferredList.push({ adr: rel, line: r.line, active: parsed.active, kind: r.kind, pattern: r.pattern.source, when: r.when?.source, include: r.include, sentence: s });
    }
    if (explicit) f.adrsWithExplicitRules++;
    f.explicitRules += explicit;
    for (const d of parsed.diagnostics) f.diagnostics[d.code] = (f.diagnostics[d.code] ?? 0) + 1;
  }
  f.parseMsTotal = Math.round(f.parseMsTotal);
  return f;
}
