import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText, formatLocation, type LogAnalysis } from '../../../src/core/offload';
import { readLabelFile, type LogLabel as FixtureLabel } from '../../fixtures/logs/labels';
import { LOG_DIR } from './fixtures';

/** A label with its log's file name. */
export interface LogLabel extends FixtureLabel {
  file: string;
}

export function readLabels(): LogLabel[] {
  return Object.entries(readLabelFile()).map(([file, l]) => ({ ...l, file }));
}

export interface Verdict {
  file: string;
  split: LogLabel['split'];
  primary: boolean;
  root: boolean;
  test: boolean;
  chain: boolean;
  /** What the analysis said, for the failure message and the report. */
  got: string;
}

/** Case, runs of white space and quoting (`x`, ‘x’, "x") are not what a label is about. */
const norm = (s: string) => s.replace(/[`‘’“”"']/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/** A printed path ends with the labelled one at a path boundary (`/tmp/x/src/a.rs:3` matches `src/a.rs:3`). */
export function sameRoot(actual: string, expected: string): boolean {
  if (actual === expected) return true;
  return actual.endsWith(expected) && /[\\/]$/.test(actual.slice(0, actual.length - expected.length));
}

export function judge(label: LogLabel, a: LogAnalysis = analyzeText(readFileSync(join(LOG_DIR, label.file), 'utf8'))): Verdict {
  const p = a.primary;
  // `memory leak` and `memory-leak` are one spelling.
  const key = (s: string) => s.toLowerCase().replace(/[-_\s]+/g, '');
  const types = label.primary.type.split('|').map(key);
  const typeOk = !!p && types.some((t) => t === key(p.code) || t === key(p.kind));
  const messageOk = !!p && norm(p.message).includes(norm(label.primary.message));
  const where = p?.location ? `${p.location.file}:${p.location.line}` : '';
  const rootOk = label.root === null ? !p?.location : !!where && sameRoot(where, label.root);
  const testOk = label.test === null ? !p?.test : !!p?.test && (p.test === label.test || p.test.includes(label.test));
  const codes = p?.chain?.map((l) => l.code) ?? [];
  const chainOk = label.chain ? codes.length === label.chain.length && codes.every((c, i) => c === label.chain![i]) : codes.length <= 1;
  const roots = p?.chain?.map((l) => (l.location ? `${l.location.file}:${l.location.line}` : null)) ?? [];
  const rootsOk = !label.chain_roots || (roots.length === label.chain_roots.length && label.chain_roots.every((r, i) => (r === null ? roots[i] === null : !!roots[i] && sameRoot(roots[i]!, r))));
  return {
    file: label.file,
    split: label.split,
    primary: typeOk && messageOk,
    root: rootOk,
    test: testOk,
    chain: chainOk && rootsOk,
    got: p ? `[${p.code}/${p.kind}] ${p.message.slice(0, 120)} @ ${formatLocation(p.location) || '-'} test=${p.test ?? '-'} chain=${codes.join(',') || '-'}` : 'no primary',
  };
}

/** The figure: right primary error AND right root file:line. */
export const correct = (v: Verdict) => v.primary && v.root;
