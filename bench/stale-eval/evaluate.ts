import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openProject } from '../../src/core/project';
import { listStale, updateStaleness } from '../../src/core/stale';
import { half, loadCases, loadHeldout, score, type EvalCase, type Outcome, type Score } from './cases';
import { buildReal, buildSynthetic, removeRepo } from './replay';

/**
 * Runs the labelled set through the real engine (the same scan + staleness update every surface relies on) and
 * scores it per half. `mode` says where each case is replayed (see replay.ts).
 */

export type Mode = 'synthetic' | 'real';

/** Where `fetch` leaves the repository's bare git directory on the machine the set was built on. */
export const DEFAULT_MIRROR = '/work/.mirror/Green-Software-Foundation+carbon-aware-sdk/repo';

export function mirrorPath(): string | undefined {
  const p = process.env.STALE_EVAL_MIRROR ?? DEFAULT_MIRROR;
  return existsSync(join(p, 'HEAD')) ? p : undefined;
}

/** Where `fetch github:owner/name` leaves a repository: `<root>/owner+name/repo` (root: STALE_EVAL_MIRRORS or /work/.mirror). */
export function mirrorFor(repo: string): string | undefined {
  const p = join(process.env.STALE_EVAL_MIRRORS ?? '/work/.mirror', repo.replace('/', '+'), 'repo');
  return existsSync(join(p, 'HEAD')) ? p : undefined;
}

/** The engine's verdict on the case's one note: stale or not, and the reason it gives. */
async function judge(root: string): Promise<{ predicted: boolean; reason?: string; status: string }> {
  const project = openProject({ vault: root });
  try {
    await project.scan();
    // Project.scan runs the update; calling it again is a no-op when nothing moved, and makes the verdict
    // independent of whether this build's scan does.
    const upd = await updateStaleness(project);
    const hit = listStale(project.index).find((n) => n.path.endsWith('eval-note.md'));
    return { predicted: !!hit, reason: hit?.info.reason, status: upd.status.enabled ? 'on' : `off: ${upd.status.reason}` };
  } finally {
    project.close();
  }
}

export interface CaseResult extends Outcome {
  /** tune / test: the first set's halves; heldout: the second set (never tuned on). */
  half: 'tune' | 'test' | 'heldout';
  repo?: string;
  kind: EvalCase['kind'];
  anchor: string;
  status: string;
  error?: string;
}

/** `onBuilt` sees each case's repository before it is judged (the test checks the replay's fidelity there). */
export type OnBuilt = (c: EvalCase, repo: string) => void;

export async function runCase(c: EvalCase, mode: Mode, mirror?: string, onBuilt?: OnBuilt, group: CaseResult['half'] = half(c)): Promise<CaseResult> {
  const root = mkdtempSync(join(tmpdir(), `k0stale-eval-${c.id}-`));
  const head = { id: c.id, half: group, ...(c.repo ? { repo: c.repo } : {}), kind: c.kind, anchor: c.anchor, label: c.stale };
  try {
    if (mode === 'real') buildReal(c, mirror!, join(root, 'repo'));
    else buildSynthetic(c, join(root, 'repo'));
    onBuilt?.(c, join(root, 'repo'));
    const v = await judge(join(root, 'repo'));
    return { ...head, predicted: v.predicted, reason: v.reason, status: v.status };
  } catch (err) {
    // A case the engine cannot judge counts as "not flagged" (it never says stale) and is reported.
    return { ...head, predicted: false, status: 'error', error: String((err as Error)?.message ?? err).slice(0, 300) };
  } finally {
    removeRepo(root);
  }
}

export interface EvalReport {
  mode: Mode;
  cases: number;
  positives: number;
  tune: Score;
  test: Score;
  all: Score;
  ms: number;
  results: CaseResult[];
}

export async function evaluate(mode: Mode, filter: (c: EvalCase) => boolean = () => true, onBuilt?: OnBuilt): Promise<EvalReport> {
  const mirror = mode === 'real' ? mirrorPath() : undefined;
  if (mode === 'real' && !mirror) throw new Error('the fetched repository is not on this machine (set STALE_EVAL_MIRROR)');
  const t0 = performance.now();
  const cases = loadCases().cases.filter(filter);
  const results: CaseResult[] = [];
  for (const c of cases) results.push(await runCase(c, mode, mirror, onBuilt));
  return {
    mode,
    cases: results.length,
    positives: results.filter((r) => r.label).length,
    tune: score(results.filter((r) => r.half === 'tune')),
    test: score(results.filter((r) => r.half === 'test')),
    all: score(results),
    ms: Math.round(performance.now() - t0),
    results,
  };
}

export interface HeldoutReport {
  mode: Mode;
  cases: number;
  positives: number;
  /** The held-out set's score (all its cases judged in this mode). */
  heldout: Score;
  byRepo: Record<string, Score>;
  /** Repositories whose cases were not judged (real mode, mirror absent). */
  skipped: { repo: string; cases: number; reason: string }[];
  ms: number;
  results: CaseResult[];
}

/** The held-out set (heldout.json), scored on its own: synthetic anywhere, real from each repository's mirror. */
export async function evaluateHeldout(mode: Mode, filter: (c: EvalCase) => boolean = () => true, onBuilt?: OnBuilt): Promise<HeldoutReport> {
  const t0 = performance.now();
  const set = loadHeldout();
  const cases = set.cases.filter(filter);
  const skipped: HeldoutReport['skipped'] = [];
  const mirrors = new Map<string, string | undefined>();
  for (const { repo } of set.repos) {
    const m = mode === 'real' ? mirrorFor(repo) : undefined;
    mirrors.set(repo, m);
    const n = cases.filter((c) => c.repo === repo).length;
    if (mode === 'real' && !m && n) skipped.push({ repo, cases: n, reason: `no mirror at ${join(process.env.STALE_EVAL_MIRRORS ?? '/work/.mirror', repo.replace('/', '+'), 'repo')} (fetch github:${repo})` });
  }
  const results: CaseResult[] = [];
  for (const c of cases) {
    if (mode === 'real' && !mirrors.get(c.repo)) continue;
    results.push(await runCase(c, mode, mirrors.get(c.repo), onBuilt, 'heldout'));
  }
  const byRepo: Record<string, Score> = {};
  for (const { repo } of set.repos) {
    const mine = results.filter((r) => r.repo === repo);
    if (mine.length) byRepo[repo] = score(mine);
  }
  return { mode, cases: results.length, positives: results.filter((r) => r.label).length, heldout: score(results), byRepo, skipped, ms: Math.round(performance.now() - t0), results };
}
