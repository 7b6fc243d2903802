// The held-out staleness set (heldout.json, issue #18), scored on its own: `npx tsx bench/stale-eval/heldout.ts`.
// Synthetic replay always; real replay from each repository's fetched mirror when it is on this machine
// (STALE_HELDOUT_REAL=0 skips it). Writes bench/stale-eval/heldout-results.json and prints the figures.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { evaluateHeldout, type HeldoutReport } from './evaluate';
import type { Score } from './cases';

const round = (x: number) => Math.round(x * 1000) / 1000;
const pick = (s: Score) => ({ cases: s.cases, tp: s.tp, fp: s.fp, fn: s.fn, tn: s.tn, precision: round(s.precision), recall: round(s.recall), falsePositives: s.falsePositives, falseNegatives: s.falseNegatives });

function summary(r: HeldoutReport) {
  return {
    cases: r.cases,
    positives: r.positives,
    heldout: pick(r.heldout),
    byRepo: Object.fromEntries(Object.entries(r.byRepo).map(([k, v]) => [k, pick(v)])),
    skipped: r.skipped,
    ms: r.ms,
    errors: r.results.filter((x) => x.error || x.status !== 'on').map((x) => ({ id: x.id, status: x.status, error: x.error ?? null })),
    wrong: r.results.filter((x) => x.label !== x.predicted).map((x) => ({ id: x.id, repo: x.repo, kind: x.kind, anchor: x.anchor, label: x.label, predicted: x.predicted, reason: x.reason ?? null })),
    verdicts: Object.fromEntries(r.results.map((x) => [x.id, x.predicted])),
  };
}

function engineAt(): string {
  const root = join(__dirname, '..', '..');
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src/core/stale'], { cwd: root, encoding: 'utf8' }).trim();
    return dirty ? `${head} + uncommitted edits to src/core/stale` : head;
  } catch {
    return 'unknown';
  }
}

async function main() {
  const started = new Date().toISOString();
  const load = loadavg()[0];
  console.log('held-out: synthetic replay …');
  const synthetic = summary(await evaluateHeldout('synthetic'));
  console.log('  precision', synthetic.heldout.precision, 'recall', synthetic.heldout.recall, 'wrong', synthetic.wrong.map((w) => w.id).join(' ') || 'none');
  let real: ReturnType<typeof summary> | { skipped: string };
  if (process.env.STALE_HELDOUT_REAL === '0') real = { skipped: 'STALE_HELDOUT_REAL=0' };
  else {
    console.log('held-out: real replay …');
    real = summary(await evaluateHeldout('real'));
    console.log('  precision', real.heldout.precision, 'recall', real.heldout.recall, 'wrong', real.wrong.map((w) => w.id).join(' ') || 'none', real.skipped.length ? `(skipped: ${real.skipped.map((s) => s.repo).join(', ')})` : '');
  }
  const out = { started, engine: engineAt(), load1: round(load), set: 'bench/stale-eval/heldout.json', synthetic, real };
  writeFileSync(join(__dirname, 'heldout-results.json'), JSON.stringify(out, null, 1) + '\n');
  console.log('wrote bench/stale-eval/heldout-results.json');
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
