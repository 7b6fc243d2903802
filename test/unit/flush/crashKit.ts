// Shared by the SIGKILL unit test and the stress suite: a real project (git repo + `.k0maru/wiki`) with two accepted
// ADRs carrying guard rules, a superseding flush through the built CLI, and the checks that the pair is whole or
// absent, no temp file is left, and the guard applies exactly the rules of the ADRs in force.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST_CLI, ensureBuilt, REPO } from '../../helpers/build';

export const OLD = ['02_Architecture/adr-001-use-sqlite.md', '02_Architecture/adr-002-use-redis-cache.md'];
export const NEW = '02_Architecture/adr-003-use-postgres.md';

/** Every named crash point of a superseding flush of two notes, in order (src/core/flush/commit.ts). */
export const FLUSH_POINTS = ['lock', 'journal', 'journal-rename', 'temp-0', 'temp-1', 'temp-2', 'create', 'rename-0', 'rename-1', 'commit', 'cleanup', 'unlock'];
/** Points after which the flush is decided (the journal is durable): recovery must roll forward. */
export const DECIDED = new Set(FLUSH_POINTS.slice(FLUSH_POINTS.indexOf('temp-0')));

const oldText = (n: number, title: string, token: string) =>
  `---\nid: ADR-00${n}\nstatus: accepted\n---\n# ADR-00${n}: ${title}\n\nBody of ${title}.\n\n## Invariants\n\n- deny: ${token} | id: OLD-${n}\n`;

export interface CrashProject {
  root: string;
  notes: string;
  originals: Map<string, string>;
}

/**
 * A snapshot of dist/ in a temp folder: other people rebuild dist/ while tests run, and a rebuild removes old
 * lazy chunks under a running CLI. Copied once per process.
 */
let distCopy: string | undefined;
export function privateCli(): string {
  if (distCopy) return join(distCopy, 'cli.mjs');
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'k0dist-'));
  cpSync(join(REPO, 'dist'), dir, { recursive: true, filter: (src) => !src.endsWith('.map') && !src.includes('/webview') });
  // The bundles resolve node_modules (none are external except vscode) and package.json for the version only.
  distCopy = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'cli.mjs');
}
void DIST_CLI;

export function crashProject(): CrashProject {
  const root = mkdtempSync(join(tmpdir(), 'k0crash-'));
  spawnSync('git', ['init', '-q'], { cwd: root });
  const notes = join(root, '.k0maru', 'wiki');
  mkdirSync(join(notes, '02_Architecture'), { recursive: true });
  const originals = new Map<string, string>();
  originals.set(OLD[0], oldText(1, 'Use SQLite', 'FORBIDDEN_OLD_ONE'));
  originals.set(OLD[1], oldText(2, 'Use Redis cache', 'FORBIDDEN_OLD_TWO'));
  for (const [rel, text] of originals) writeFileSync(join(notes, rel), text);
  writeFileSync(join(root, 'content.md'), 'We outgrew SQLite and the cache.\n\n## Invariants\n\n- deny: FORBIDDEN_NEW | id: NEW-3\n');
  writeFileSync(join(root, 'log.md'), 'An unrelated session log.\n');
  writeFileSync(join(root, 'code.ts'), 'call(FORBIDDEN_OLD_ONE);\ncall(FORBIDDEN_OLD_TWO);\ncall(FORBIDDEN_NEW);\n');
  return { root, notes, originals };
}

export function cli(p: CrashProject, args: string[], env: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [privateCli(), ...args], {
    cwd: p.root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: p.root, ...env },
    timeout: 60_000,
  });
}

export const supersedingFlush = ['flush', '--title', 'Use Postgres', '--category', 'decision', '--supersedes', 'ADR-001', '--supersedes', 'ADR-002', '--date', '2026-12-01', '--content-file', 'content.md'];

/** Every leftover of ours anywhere in the project: temp files, journals, locks. */
export function leftovers(root: string): string[] {
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => !f.startsWith('.git/'))
    .filter((f) => /\.tmp$/.test(f) || /flush\.journal/.test(f) || /flush\.lock/.test(f));
}

export type PairState = 'whole' | 'absent';

/** Throws unless the new note and every superseded note agree: all written, or none. */
export function pairState(p: CrashProject): PairState {
  const hasNew = existsSync(join(p.notes, NEW));
  const olds = OLD.map((rel) => readFileSync(join(p.notes, rel), 'utf8'));
  if (!hasNew) {
    OLD.forEach((rel, i) => {
      if (olds[i] !== p.originals.get(rel)) throw new Error(`no new note, but ${rel} changed:\n${olds[i]}`);
    });
    return 'absent';
  }
  const text = readFileSync(join(p.notes, NEW), 'utf8');
  if (!/supersedes:/.test(text) || !text.includes('FORBIDDEN_NEW')) throw new Error(`new note is torn:\n${text}`);
  OLD.forEach((rel, i) => {
    if (!/^status: superseded$/m.test(olds[i]) || !olds[i].includes('superseded_by: "[[adr-003-use-postgres]]"')) {
      throw new Error(`new note exists but ${rel} is not superseded:\n${olds[i]}`);
    }
    if (!olds[i].endsWith(p.originals.get(rel)!.slice(p.originals.get(rel)!.indexOf('# ADR')))) throw new Error(`${rel} body changed`);
  });
  return 'whole';
}

/** The rule ids the guard reports on code.ts: exactly the rules of the ADRs in force. */
export function guardRuleIds(p: CrashProject, env: Record<string, string> = {}): string[] {
  const r = cli(p, ['guard', '--json', 'code.ts'], env);
  if (r.status !== 0 && r.status !== 1) throw new Error(`guard exited ${r.status} ${r.signal ?? ''}: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { violations: { ruleId: string }[] };
  return [...new Set(out.violations.map((v) => v.ruleId))].sort();
}

export const expectedRules = (s: PairState): string[] => (s === 'whole' ? ['NEW-3'] : ['OLD-1', 'OLD-2']);
