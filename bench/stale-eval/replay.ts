import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import type { EvalCase, Hunk } from './cases';

/**
 * Builds the git repository one labelled case is judged in. Two ways:
 *  - synthetic (`buildSynthetic`): generated files with the real file's path, line count and definition lines,
 *    changed by the real diff's hunks (same line numbers) — runs anywhere, no network, no third-party code;
 *  - real (`buildReal`): a local clone of the fetched repository checked out at the case's `eval` commit, the note
 *    carrying `verified_at: <base>`.
 * Either way the note names exactly one anchor, so its verdict is that anchor's.
 */

const GIT_ENV = { GIT_AUTHOR_NAME: 'eval', GIT_AUTHOR_EMAIL: 'eval@example.invalid', GIT_COMMITTER_NAME: 'eval', GIT_COMMITTER_EMAIL: 'eval@example.invalid' };
// Fixture building only (the engine under test runs git through src/core/git/run.ts): no hooks, no user config.
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...GIT_ENV, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    maxBuffer: 64 * 1024 * 1024,
    // Captured, not inherited: update-index warns about the blobs the snapshot lacks (harmless, see buildReal).
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export const NOTE_PATH = join('.k0maru', 'wiki', '20_Cards', 'eval-note.md');

function noteText(c: EvalCase, verifiedAt?: string): string {
  return [
    '---',
    `title: "Eval case ${c.id}"`,
    'category: concept',
    ...(verifiedAt ? [`verified_at: ${verifiedAt}`] : []),
    '---',
    `# Eval case ${c.id}`,
    '',
    `This note relies on \`${c.anchor}\` as it was when the note was written.`,
    '',
  ].join('\n');
}

function initRepo(root: string): void {
  mkdirSync(join(root, '.k0maru', 'wiki', '20_Cards'), { recursive: true });
  git(root, 'init', '-q', '-b', 'main');
  // The index and other state under .k0maru are not the notes: only the wiki is versioned.
  writeFileSync(join(root, '.gitignore'), '/.k0maru/*\n!/.k0maru/wiki/\n');
}

const isCs = (path: string) => extname(path) === '.cs';
const isGo = (path: string) => extname(path) === '.go';
const isPy = (path: string) => extname(path) === '.py';
const classNameOf = (path: string) => `Gen_${path.replace(/[^A-Za-z0-9]/g, '_')}`;

/** Filler and fresh lines are comments in the file's language (so they never define or break anything). */
function fillerLine(path: string, text: string): string {
  if (isCs(path) || isGo(path)) return `// ${text}`;
  if (isPy(path)) return `# ${text}`;
  return text;
}

/**
 * A generated file of `lines` lines: filler, plus the case's definition at its real lines (C#, Go, Python). The
 * filler is comments, unique per line (so git's diff aligns lines the way the real one did); a C# method or
 * constant sits in its real type's lines (a C# method must sit in a type to be one), a Python method in its class.
 */
export function generateFile(path: string, lines: number, defn?: EvalCase['defn']): string[] {
  if (isGo(path) || isPy(path)) return generateGoPy(path, lines, defn);
  const out = Array.from({ length: lines }, (_, i) => (isCs(path) ? `// ${path} line ${i + 1}` : `line ${i + 1} of ${path}`));
  if (!defn || !isCs(path)) return out;
  const set = (line: number, text: string) => {
    if (line < 1 || line > lines) throw new Error(`definition line ${line} outside ${path} (${lines} lines)`);
    out[line - 1] = text;
  };
  if (defn.type !== 'class') {
    // The type it sits in, at the real lines when known (so the real hunks hit the same lines), else the whole file.
    const box = defn.container ?? { name: classNameOf(path), start: 1, end: lines };
    if (defn.start < box.start + 2 || defn.end > box.end - 1) throw new Error(`no room for the class around ${defn.name} in ${path}`);
    set(box.start, `internal class ${box.name}`);
    set(box.start + 1, '{');
    set(box.end, '}');
  }
  if (defn.type === 'const') {
    set(defn.start, `    public const string ${defn.name} = "${defn.start}";`);
    return out;
  }
  const indent = defn.type === 'class' ? '' : '    ';
  set(defn.start, defn.type === 'class' ? `public class ${defn.name}` : `${indent}public void ${defn.name}(int arg)`);
  set(defn.start + 1, `${indent}{`);
  for (let l = defn.start + 2; l < defn.end; l++) set(l, `${indent}    int v${l} = arg + ${l};`);
  set(defn.end, `${indent}}`);
  if (defn.ctor) {
    set(defn.ctor.start, `    public ${defn.name}(int arg)`);
    set(defn.ctor.start + 1, '    {');
    for (let l = defn.ctor.start + 2; l < defn.ctor.end; l++) set(l, `        int c${l} = arg;`);
    set(defn.ctor.end, '    }');
  }
  return out;
}

function generateGoPy(path: string, lines: number, defn?: EvalCase['defn']): string[] {
  const out = Array.from({ length: lines }, (_, i) => fillerLine(path, `${path} line ${i + 1}`));
  if (!defn) return out;
  const set = (line: number, text: string) => {
    if (line < 1 || line > lines) throw new Error(`definition line ${line} outside ${path} (${lines} lines)`);
    out[line - 1] = text;
  };
  if (isGo(path)) {
    if (defn.type !== 'func') throw new Error(`no Go generator for a ${defn.type} (${defn.name})`);
    if (defn.start === defn.end) set(defn.start, `func ${defn.name}(arg int) {}`);
    else {
      set(defn.start, `func ${defn.name}(arg int) {`);
      for (let l = defn.start + 1; l < defn.end; l++) set(l, `\tv${l} := arg + ${l}`);
      set(defn.end, '}');
    }
    return out;
  }
  let indent = '';
  if (defn.type === 'method') {
    const box = defn.container ?? { name: classNameOf(path), start: 1, end: lines };
    if (defn.start <= box.start || defn.end > box.end) throw new Error(`no room for the class around ${defn.name} in ${path}`);
    set(box.start, `class ${box.name}:`);
    indent = '    ';
  }
  const header = defn.type === 'class' ? `class ${defn.name}:` : `def ${defn.name}(${defn.type === 'method' ? 'self, ' : ''}arg):`;
  if (defn.start === defn.end) set(defn.start, `${indent}${header} pass`);
  else {
    set(defn.start, `${indent}${header}`);
    for (let l = defn.start + 1; l <= defn.end; l++) set(l, `${indent}    v${l} = ${l}`);
  }
  return out;
}

/** A Go or Python line that opens a definition (a hunk replacing it keeps a definition there, under another name). */
const HEADER = /^(\s*)(func|def|class) ([A-Za-z_]\w*)(.*)$/;

/** A small file defining `name` too (for the ambiguous cases). */
function alsoFile(path: string, defn: NonNullable<EvalCase['defn']>): string[] {
  return generateFile(path, 8, { ...defn, start: 3, end: defn.type === 'const' ? 3 : 6, container: undefined });
}

/** Applies `git diff -U0` hunks (old numbering) to `lines`: each replaces its old lines with generated new ones (`keep`: see EvalCase.defn.ctor). */
export function applyHunks(lines: string[], hunks: Hunk[], tag: string, path: string, keep: number[] = []): string[] {
  const out = [...lines];
  for (const [oldStart, oldCount, , newCount] of [...hunks].sort((a, b) => b[0] - a[0])) {
    const fresh = Array.from({ length: newCount }, (_, i) => (isCs(path) ? `        // ${tag} new line ${oldStart}.${i}` : isGo(path) || isPy(path) ? `        ${fillerLine(path, `${tag} new line ${oldStart}.${i}`)}` : `${tag} new line ${oldStart}.${i}`));
    // Go / Python: a rewritten definition line stays a definition line, renamed (the real commits changed a name or a
    // signature there; a bare comment would leave its body as stray indented code the parser reads differently).
    if (isGo(path) || isPy(path)) {
      for (let k = 0; k < Math.min(oldCount, newCount); k++) {
        const m = HEADER.exec(lines[oldStart - 1 + k] ?? '');
        if (m) fresh[k] = `${m[1]}${m[2]} ${m[3]}_${tag}${m[4]}`;
      }
    }
    // A rewritten line whose definition the real commit kept: same name, other parameters.
    for (const k of keep) if (k >= oldStart && k < oldStart + oldCount && k - oldStart < newCount) fresh[k - oldStart] = lines[k - 1].replace('(int arg)', `(long arg) // ${tag}`);
    // -U0 numbers a pure insertion by the line it follows; a removal or replacement by its first line.
    const at = oldCount === 0 ? oldStart : oldStart - 1;
    out.splice(at, oldCount, ...fresh);
  }
  return out;
}

function writeLines(root: string, path: string, lines: string[]): void {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, lines.join('\n') + '\n');
}

function editWorktree(root: string, path: string, edits: [number, number, number][]): void {
  const abs = join(root, path);
  const lines = readFileSync(abs, 'utf8').replace(/\n$/, '').split('\n');
  writeLines(root, path, applyHunks(lines, edits.map(([s, r, a]) => [s, r, s, a] as Hunk), 'uncommitted', path));
}

/** The case replayed on generated content in a fresh repository at `root`. */
export function buildSynthetic(c: EvalCase, root: string): void {
  initRepo(root);
  const base = generateFile(c.path, c.baseLines, c.kind === 'symbol' ? c.defn : undefined);
  writeLines(root, c.path, base);
  const writeAlso = () => {
    for (const p of c.also ?? []) writeLines(root, p, alsoFile(p, c.defn!));
  };
  if (!c.alsoAdded) writeAlso();
  writeFileSync(join(root, NOTE_PATH), noteText(c));
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', `base ${c.base.slice(0, 8)}`);
  const ch = c.change;
  if (c.alsoAdded) writeAlso();
  if (ch.op !== 'none' || c.alsoAdded) {
    if (ch.op === 'none') {
      /* only the `also` files are new */
    } else if (ch.op === 'delete') unlinkSync(join(root, c.path));
    else {
      const target = ch.op === 'rename' ? ch.to : c.path;
      const keep = c.defn?.ctor?.keptName ? [c.defn.ctor.start] : [];
      const next = applyHunks(base, 'hunks' in ch ? ch.hunks : [], c.eval.slice(0, 8), c.path, keep);
      if (target !== c.path) {
        mkdirSync(dirname(join(root, target)), { recursive: true });
        renameSync(join(root, c.path), join(root, target));
      }
      writeLines(root, target, next);
    }
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', `eval ${c.eval.slice(0, 8)}`);
  }
  if (c.worktree) editWorktree(root, c.path, c.worktree);
}

/** Blobs the snapshot lacks (it omits files of 4 MiB and more): a checkout must leave those paths out. */
function missingPaths(clone: string, commit: string): string[] {
  const entries = git(clone, 'ls-tree', '-r', '-z', commit)
    .split('\0')
    .filter(Boolean)
    .map((e) => {
      const [meta, path] = e.split('\t');
      const [, type, sha] = meta.split(' ');
      return { type, sha, path };
    })
    .filter((e) => e.type === 'blob');
  const out = execFileSync('git', ['cat-file', '--batch-check'], { cwd: clone, input: entries.map((e) => e.sha).join('\n') + '\n', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const missing = new Set(out.split('\n').filter((l) => l.endsWith(' missing')).map((l) => l.split(' ')[0]));
  return entries.filter((e) => missing.has(e.sha)).map((e) => e.path);
}

/**
 * The case replayed on the real repository: `mirror` (the fetched bare git directory) cloned to `root` sharing its
 * objects, checked out at `eval` (without the blobs the snapshot lacks), the note committed with `verified_at: base`.
 */
export function buildReal(c: EvalCase, mirror: string, root: string): void {
  git(dirname(root), 'clone', '-q', '--shared', '--no-checkout', mirror, root);
  const missing = missingPaths(root, c.eval);
  git(root, 'sparse-checkout', 'set', '--no-cone', '/*', ...missing.map((p) => `!/${p}`));
  git(root, 'checkout', '-q', '-b', 'eval', c.eval);
  mkdirSync(join(root, '.k0maru', 'wiki', '20_Cards'), { recursive: true });
  writeFileSync(join(root, '.git', 'info', 'exclude'), '/.k0maru/*\n!/.k0maru/wiki/\n');
  writeFileSync(join(root, NOTE_PATH), noteText(c, c.base));
  // `git commit` refuses a tree naming blobs the snapshot lacks; plumbing with --missing-ok records the real tree
  // plus the note, and the index already matches it.
  git(root, 'update-index', '--add', NOTE_PATH.split('\\').join('/'));
  const tree = git(root, 'write-tree', '--missing-ok').trim();
  const commit = git(root, 'commit-tree', tree, '-p', 'HEAD', '-m', `note for eval case ${c.id}`).trim();
  git(root, 'update-ref', 'HEAD', commit);
  if (c.worktree) editWorktree(root, c.path, c.worktree);
}

export function removeRepo(root: string): void {
  if (existsSync(root)) rmSync(root, { recursive: true, force: true });
}
