import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { generateVault, rng } from '../lib/vaultGen';

/**
 * A generated repository with a long history, for the staleness benchmarks: `files` TypeScript sources of four
 * functions each, `commits` commits (the first adds everything, each later one edits the bodies of 3 files, picked
 * by a Zipf law), and
 * the notes of bench/lib/vaultGen (its realistic vocabulary) committed in `noteBases` batches spread over the
 * history, so they have that many distinct bases. With `anchors`, each note ends with a "Code" section naming
 * `anchorsPerNote` anchors: a path, a line range, a function, a function written as a call (half are symbols).
 * Built in one `git fast-import` (seconds for thousands of commits), then checked out.
 */

export interface RepoSpec {
  commits: number;
  files: number;
  notes: number;
  anchorsPerNote: number;
  noteBases: number;
  anchors: boolean;
  seed?: number;
}

const FUNCS = 4;
const filePath = (i: number) => `src/mod${i % 25}/file${i}.ts`;
const fnName = (i: number, j: number) => `f${i}_${j}`;

function source(i: number, versions: number[]): string {
  const out = [`// generated module ${i}`, `import { log } from '../log';`, ''];
  for (let j = 0; j < FUNCS; j++) out.push(`export function ${fnName(i, j)}(x: number): number {`, `  log('${fnName(i, j)}');`, `  return x * ${versions[j] + 2} + ${j};`, '}', '');
  return out.join('\n');
}
/** The line range of function `j` in source(): header of 3 lines, then 5 lines per function. */
const fnLines = (j: number) => [4 + 5 * j, 7 + 5 * j] as const;

function readNotes(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const visit = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) visit(p);
      else out.push({ path: relative(dir, p).split('\\').join('/'), text: readFileSync(p, 'utf8') });
    }
  };
  visit(dir);
  return out;
}

export interface GeneratedRepo {
  root: string;
  anchorCount: number;
  /** Edits `n` distinct files' function bodies (picked uniformly) and commits them (the "commit touching 20 files"). */
  commitTouching(n: number, message: string): string[];
}

function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'gen', GIT_AUTHOR_EMAIL: 'gen@example.invalid', GIT_COMMITTER_NAME: 'gen', GIT_COMMITTER_EMAIL: 'gen@example.invalid' },
  });
}

export function generateRepo(root: string, spec: RepoSpec): GeneratedRepo {
  const r = rng(spec.seed ?? 7);
  const pickInt = (n: number) => Math.floor(r() * n);
  const versions = Array.from({ length: spec.files }, () => new Array(FUNCS).fill(0));
  const scratch = mkdtempSync(join(tmpdir(), 'k0stale-notes-'));
  let notes: { path: string; text: string }[];
  try {
    generateVault(scratch, spec.notes, spec.seed ?? 42);
    notes = readNotes(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  let anchorCount = 0;
  const withAnchors = notes.map((n) => {
    if (!spec.anchors) return n;
    const lines = ['', '## Code', ''];
    for (let k = 0; k < spec.anchorsPerNote; k++) {
      const i = pickInt(spec.files);
      const j = pickInt(FUNCS);
      const [s, e] = fnLines(j);
      const form = [`\`${filePath(i)}\``, `\`${filePath(i)}:${s}-${e}\``, `\`${fnName(i, j)}\``, `\`${fnName(i, j)}()\``][k % 4];
      lines.push(`- relies on ${form}`);
      anchorCount++;
    }
    return { path: n.path, text: n.text + lines.join('\n') + '\n' };
  });

  const chunks: string[] = [];
  const data = (s: string) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  let when = 1_700_000_000;
  const commit = (mark: number, msg: string, files: { path: string; text: string }[]) => {
    chunks.push(`commit refs/heads/main\nmark :${mark}\ncommitter gen <gen@example.invalid> ${(when += 600)} +0000\n${data(msg)}`);
    if (mark > 1) chunks.push(`from :${mark - 1}\n`);
    for (const f of files) chunks.push(`M 100644 inline ${f.path}\n${data(f.text)}`);
    chunks.push('\n');
  };
  const notesPerBase = Math.ceil(withAnchors.length / spec.noteBases);
  const baseAt = new Map<number, number>(); // commit number -> batch index
  for (let k = 0; k < spec.noteBases; k++) baseAt.set(Math.max(2, Math.floor(((k + 1) * spec.commits) / (spec.noteBases + 1))), k);
  const initial = [
    { path: '.gitignore', text: '/.k0maru/*\n!/.k0maru/wiki/\n' },
    { path: 'src/log.ts', text: 'export function log(_m: string): void {}\n' },
    ...versions.map((v, i) => ({ path: filePath(i), text: source(i, v) })),
  ];
  commit(1, 'initial import', initial);
  // Which files a commit edits follows a Zipf law (as in real repositories: a few hot files change all the time,
  // most rarely), so a note's anchors are not all stale by construction.
  const weights = Array.from({ length: spec.files }, (_, i) => 1 / (i + 1));
  const cumulative: number[] = [];
  weights.reduce((acc, w, i) => (cumulative[i] = acc + w), 0);
  const total = cumulative[cumulative.length - 1];
  const order = Array.from({ length: spec.files }, (_, i) => i).sort(() => r() - 0.5); // hot files anywhere in the tree
  const pickHot = () => {
    const x = r() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return order[lo];
  };
  for (let c = 2; c <= spec.commits; c++) {
    const touched = new Set<number>();
    while (touched.size < 3) touched.add(pickHot());
    const files = [...touched].map((i) => {
      versions[i][pickInt(FUNCS)]++;
      return { path: filePath(i), text: source(i, versions[i]) };
    });
    const batch = baseAt.get(c);
    if (batch !== undefined) for (const n of withAnchors.slice(batch * notesPerBase, (batch + 1) * notesPerBase)) files.push({ path: `.k0maru/wiki/${n.path}`, text: n.text });
    commit(c, `change ${c}: ${[...touched].map(filePath).join(', ')}`, files);
  }
  mkdirSync(root, { recursive: true });
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['fast-import', '--quiet'], chunks.join(''));
  git(root, ['checkout', '-q', '-f', 'main']);

  return {
    root,
    anchorCount,
    commitTouching(n: number, message: string): string[] {
      const touched = new Set<number>();
      while (touched.size < Math.min(n, spec.files)) touched.add(pickInt(spec.files));
      const paths = [...touched].map((i) => {
        versions[i][pickInt(FUNCS)]++;
        writeFileSync(join(root, filePath(i)), source(i, versions[i]));
        return filePath(i);
      });
      git(root, ['add', '--', ...paths]);
      git(root, ['commit', '-q', '-m', message]);
      return paths;
    },
  };
}
