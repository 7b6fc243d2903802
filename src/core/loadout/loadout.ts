import { basename, relative } from 'node:path';
import { globMatcher } from '../guard/engine';
import type { Project } from '../project';
import { K0Error } from '../errors';
import { loadVaultRules } from '../guard/ruleStore';
import { branchChanges, repoRoot, worktreeChanges } from '../guard/diffSource';
import type { AdrRules } from '../guard/types';
import { projectMatches } from '../guard/project';
import { detectStack } from './stack';
import { findVision } from './vision';
import { listAdrNotes } from '../index/adrNotes';
import { fitToBudget, type LoadoutSection } from './budget';
import { stalenessStatus, type StalenessStatus } from '../stale';
import { staleDecisions, staleLine, STALE_DEMOTION, type StaleDecision } from './staleMarks';

export interface LoadoutOptions {
  projectName?: string;
  /** Activate the ADRs relevant to the working-tree changes (or to `branch`...HEAD). */
  diff?: boolean;
  branch?: string;
  budget?: number;
}

export interface Loadout {
  markdown: string;
  tokens: number;
  budget: number;
  /** Lines left out to stay within the budget. */
  dropped: number;
  activatedAdrs: string[];
  changedFiles: string[];
  /**
   * The decisions whose anchored code changed since they were last true (issue #18), shown or not: each is
   * marked ⚠ in the markdown and ranks below the fresh ones for the budget.
   */
  staleDecisions: StaleDecision[];
  /** Whether staleness could be computed (off outside a git repository, before the first scan, in a shallow clone). */
  staleness: StalenessStatus;
}

export const DEFAULT_LOADOUT_BUDGET = 300;

/**
 * The session bootstrap: vision, core stack, active L3 invariants and decisions, recent L2 logs — within a hard
 * token budget. With `diff`, the ADRs whose rule scopes or tags touch the changed paths come first.
 */
export async function getProjectLoadout(project: Pick<Project, 'paths' | 'index' | 'config'>, opts: LoadoutOptions = {}): Promise<Loadout> {
  const budget = opts.budget ?? DEFAULT_LOADOUT_BUDGET;
  if (!Number.isInteger(budget) || budget < 20 || budget > 100_000) throw new K0Error('INVALID_ARGUMENT', 'budget must be an integer number of tokens from 20 to 100000');
  const { paths, index } = project;
  const vision = findVision(project);
  const name = opts.projectName?.trim() || vision?.projectName || basename(paths.projectRoot);
  const stack = detectStack(paths.projectRoot, project.config.stack);

  let changed: string[] = [];
  if (opts.diff || opts.branch) changed = await changedPaths(paths.projectRoot, opts.branch);
  const adrs = (await loadVaultRules(paths, index)).adrs.filter((a) => a.active && projectMatches(a, opts.projectName));
  const tagsByPath = new Map(index.all('SELECT path, tags FROM documents').map((r) => [String(r.path), JSON.parse(String(r.tags)) as string[]]));
  const activated = new Set(adrs.filter((a) => changed.length && isRelevant(a, changed, tagsByPath.get(a.adrPath) ?? [])).map((a) => a.adrPath));

  // Which notes are decisions: the core's one answer (category before folder), as the editor's Architecture view.
  const decisions = listAdrNotes(index).filter((d) => !d.superseded).slice(0, 20);
  const stale = staleDecisions(index, [...adrs.filter((a) => a.rules.length).map((a) => a.adrPath), ...decisions.map((d) => String(d.path))]);

  const header: LoadoutSection = { heading: `# Context Loadout: ${name}`, lines: [] };
  if (vision) header.lines.push({ text: `- Root: \`${vision.rel}\``, priority: 950 });
  if (stack.length) header.lines.push({ text: `- Core Stack: ${stack.join(', ')}`, priority: 900 });
  if (changed.length) header.lines.push({ text: `- Changed: ${changed.length} file(s)${activated.size ? `, ${activated.size} ADR(s) activated` : ''}`, priority: 880 });
  if (vision?.sentence) header.lines.push({ text: `- Vision: ${vision.sentence}`, priority: 870 });
  if (stale.size) header.lines.push({ text: `- ⚠ Stale: ${stale.size} decision(s) name code that changed since (\`k0maru stale\`)`, priority: 860 });

  const l3: LoadoutSection = { heading: '## L3 Invariants & Decisions:', lines: [] };
  const withRules = adrs.filter((a) => a.rules.length).sort((a, b) => Number(activated.has(b.adrPath)) - Number(activated.has(a.adrPath)));
  withRules.forEach((a, i) => {
    const rules = a.rules.slice(0, 3).map((r) => r.text).join(' · ');
    const name = `[[${noteName(a.adrPath)}]]${activated.has(a.adrPath) ? ' ⚡' : ''}`;
    const priority = (activated.has(a.adrPath) ? 800 : 600) - Math.min(i, 99);
    const s = stale.get(a.adrPath);
    l3.lines.push(s ? staleLine(name, rules, s, priority - STALE_DEMOTION) : { text: `- ${name}: ${rules}`, priority });
  });
  const ruled = new Set(adrs.map((a) => a.adrPath));
  decisions
    .filter((d) => !ruled.has(String(d.path)))
    .forEach((d, i) => {
      const s = stale.get(String(d.path));
      const name = `[[${noteName(String(d.path))}]]`;
      l3.lines.push(s ? staleLine(name, summaryOf(d), s, 400 - Math.min(i, 99) - STALE_DEMOTION) : { text: `- ${name}: ${summaryOf(d)}`, priority: 400 - i });
    });

  const l2: LoadoutSection = { heading: '## Recent L2 Logs:', lines: [] };
  index
    .all("SELECT path, title, date, frontmatter FROM documents WHERE tier = 'L2' ORDER BY COALESCE(date, '') DESC, path DESC LIMIT 5")
    .forEach((d, i) => l2.lines.push({ text: `- ${d.date ? String(d.date) + ': ' : ''}${summaryOf(d)}`, priority: 500 - i * 40 }));

  const fitted = fitToBudget([header, l3, l2], budget);
  return { markdown: fitted.text, tokens: fitted.tokens, budget, dropped: fitted.dropped, activatedAdrs: [...activated], changedFiles: changed, staleDecisions: [...stale.values()], staleness: stalenessOf(index) };
}

function noteName(rel: string): string {
  return basename(rel).replace(/\.md$/i, '');
}

function summaryOf(row: Record<string, unknown>): string {
  let fm: Record<string, unknown> = {};
  try {
    fm = JSON.parse(String(row.frontmatter ?? '{}'));
  } catch {
    /* title it is */
  }
  const s = typeof fm.summary === 'string' && fm.summary.trim() ? fm.summary : String(row.title);
  return s.replace(/\s+/g, ' ').trim();
}

/** An ADR matters for a change when one of its rules is scoped to a changed path, or one of its tags names a path segment. */
function isRelevant(a: AdrRules, changed: string[], tags: string[]): boolean {
  for (const r of a.rules) {
    if (!r.include.length) continue;
    // The guard's own matcher, so a scope reads the same here as in a check (bare globs, `\` from Windows).
    const inScope = globMatcher(r.include)!;
    const out = globMatcher(r.exclude) ?? (() => false);
    if (changed.some((p) => inScope(p) && !out(p))) return true;
  }
  const words = new Set(changed.flatMap((p) => p.toLowerCase().split(/[^a-z0-9]+/)));
  return tags.some((t) => words.has(t.toLowerCase()));
}

async function changedPaths(projectRoot: string, branch?: string): Promise<string[]> {
  try {
    const root = await repoRoot(projectRoot);
    const files = branch ? await branchChanges(root, branch) : await worktreeChanges(root);
    const prefix = relative(root, projectRoot).split('\\').join('/');
    // Only the project's own files count (a vault may sit in a sub-folder of a larger repository).
    return files
      .filter((f) => !f.path.includes('.k0maru/') && (!prefix || f.path.startsWith(prefix + '/')))
      .map((f) => (prefix ? f.path.slice(prefix.length + 1) : f.path));
  } catch {
    return []; // not a git repository: nothing is "changed"
  }
}

function stalenessOf(index: Pick<Project, 'index'>['index']): StalenessStatus {
  try {
    return stalenessStatus(index);
  } catch (err) {
    return { enabled: false, reason: `staleness unknown (${(err as Error).message})` };
  }
}
