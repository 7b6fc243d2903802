import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The hand-labelled staleness set (issue #18): note/commit pairs from the real history of a public repository
 * (cases.json, see README.md). Each case is one note naming one anchor, written at `base` and judged at `eval`
 * (plus an optional uncommitted edit). Only paths, commit ids, line numbers and labels are stored — never the
 * repository's code or prose.
 */

/** A diff hunk as `git diff -U0` numbers it: old start, old count, new start, new count. */
export type Hunk = [number, number, number, number];

export interface EvalCase {
  id: number;
  /** The repository the case comes from (`owner/name`); the held-out set mixes two, the first set has one. */
  repo?: string;
  kind: 'path' | 'lines' | 'symbol';
  /** The anchor exactly as the note writes it (`src/a.cs`, `src/a.cs:22-29`, `GetAllLocations()`). */
  anchor: string;
  /** The file the anchor is about, at `base`. */
  path: string;
  start?: number;
  end?: number;
  /** For symbol cases: where the symbol is defined at `base` (what the generated file reproduces). */
  defn?: { name: string; start: number; end: number; type: 'method' | 'class' | 'const' | 'func'; container?: { name: string; start: number; end: number };
    /**
     * A class's constructor (it shares the class's name), at its real lines; `keptName`: a hunk that rewrites its
     * first line keeps the name there (the real commit changed its parameters, not its name).
     */
    ctor?: { start: number; end: number; keptName?: boolean } };
  /** Other files that define the same name at `base` (the name is then ambiguous). */
  also?: string[];
  /** The `also` definitions appeared between `base` and `eval` (the name became ambiguous in that span). */
  alsoAdded?: boolean;
  base: string;
  eval: string;
  /** Uncommitted edits on top of `eval`: [start line, lines removed, lines added]. */
  worktree?: [number, number, number][];
  /** What `git diff -M -U0 base eval` did to `path` in the real history. */
  change: { op: 'none' | 'modify' | 'delete' } | { op: 'rename'; to: string; similarity: number; hunks: Hunk[] } | { op: 'modify'; hunks: Hunk[] };
  /** Line count of `path` at `base`. */
  baseLines: number;
  /** The hand label: should the note be flagged stale at `eval` (+ worktree)? */
  stale: boolean;
  why: string;
  /** Where the anchor comes from (a document of the repository that names it, or the commit that changed it). */
  source: string;
}

export interface EvalSet {
  repo: string;
  license: string;
  cases: EvalCase[];
}

export function loadCases(): EvalSet {
  return JSON.parse(readFileSync(join(__dirname, 'cases.json'), 'utf8')) as EvalSet;
}

/**
 * The held-out set (heldout.json): labelled from two other repositories' history after the engine was built and
 * never used to change it — its score is the one that says how the engine does on history it was not tuned on.
 */
export interface HeldoutSet {
  note: string;
  repos: { repo: string; license: string; language: string }[];
  cases: (EvalCase & { repo: string })[];
}

export function loadHeldout(): HeldoutSet {
  return JSON.parse(readFileSync(join(__dirname, 'heldout.json'), 'utf8')) as HeldoutSet;
}

/** The split the issue asks for: odd ids tune, even ids test (ids were assigned before anything was run). */
export const half = (c: EvalCase): 'tune' | 'test' => (c.id % 2 ? 'tune' : 'test');

export interface Outcome {
  id: number;
  label: boolean;
  predicted: boolean;
  reason?: string;
}

export interface Score {
  cases: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  /** tp / (tp + fp); 1 when nothing was flagged (no false "stale" was said). */
  precision: number;
  recall: number;
  falsePositives: number[];
  falseNegatives: number[];
}

export function score(outcomes: Outcome[]): Score {
  const tp = outcomes.filter((o) => o.label && o.predicted);
  const fp = outcomes.filter((o) => !o.label && o.predicted);
  const fn = outcomes.filter((o) => o.label && !o.predicted);
  const flagged = tp.length + fp.length;
  const positives = tp.length + fn.length;
  return {
    cases: outcomes.length,
    tp: tp.length,
    fp: fp.length,
    fn: fn.length,
    tn: outcomes.length - flagged - fn.length,
    precision: flagged ? tp.length / flagged : 1,
    recall: positives ? tp.length / positives : 1,
    falsePositives: fp.map((o) => o.id),
    falseNegatives: fn.map((o) => o.id),
  };
}
