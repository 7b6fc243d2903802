import { runGit, GIT_DIFF_SAFE } from '../git/run';

/**
 * The git plumbing staleness runs, each one call over many paths (never one call per note), all through runGit
 * (hardened against a repository's own config). Paths are relative to the repository top; calls run there.
 */

const LITERAL = ['-c', 'core.quotePath=false'];

/** One update's filter overrides for working-tree calls (runGit's filterCache): config is read once per update. */
export type FilterCache = { overrides?: Promise<string[]> };

export interface TrackedFile {
  mode: string;
  blob: string;
}

/** Tracked files with their mode and blob id (`git ls-files -s`). */
export async function trackedFiles(top: string, signal?: AbortSignal): Promise<Map<string, TrackedFile>> {
  const out = new Map<string, TrackedFile>();
  const text = await runGit(top, [...LITERAL, 'ls-files', '-s', '-z'], { signal });
  for (const entry of text.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, blob, stage] = entry.slice(0, tab).split(' ');
    if (stage !== '0' && out.has(entry.slice(tab + 1))) continue; // a conflicted file: keep its first stage
    out.set(entry.slice(tab + 1), { mode, blob });
  }
  return out;
}

/** Tracked files (among `pathspecs`) whose text holds any of `words` as a whole word (`git grep -l -w -F`). */
export async function filesWithWords(top: string, words: string[], pathspecs: string[], signal?: AbortSignal): Promise<string[]> {
  if (!words.length) return [];
  const args = [...LITERAL, 'grep', '-l', '-z', '-I', '-w', '-F', '--no-textconv', '--no-color'];
  for (const w of words) args.push('-e', w);
  const text = await runGit(top, [...args, '--', ...pathspecs], { okCodes: [0, 1], signal, worktree: true });
  return text.split('\0').filter(Boolean);
}

/** Like filesWithWords, in the tree of `commit` (`git grep … <commit> --`), paths without the `commit:` prefix. */
export async function filesWithWordsAt(top: string, commit: string, words: string[], pathspecs: string[], signal?: AbortSignal): Promise<string[]> {
  if (!words.length) return [];
  const args = [...LITERAL, 'grep', '-l', '-z', '-I', '-w', '-F', '--no-textconv', '--no-color'];
  for (const w of words) args.push('-e', w);
  const text = await runGit(top, [...args, commit, '--', ...pathspecs], { okCodes: [0, 1], signal });
  return text.split('\0').filter(Boolean).map((p) => (p.startsWith(`${commit}:`) ? p.slice(commit.length + 1) : p));
}

export interface CommitRef {
  sha: string;
  date: string;
}

/**
 * The last commit that changed each file under `folders`, from one walk of `git log --name-only` (newest first,
 * so the first sighting of a path is its last change). `range` limits the walk (`old..new` after a fast-forward).
 */
export async function lastChanges(top: string, folders: string[], range: string | undefined, signal?: AbortSignal): Promise<Map<string, CommitRef>> {
  const out = new Map<string, CommitRef>();
  const args = [...LITERAL, 'log', '-z', '--no-renames', '--format=%x01%H %cs', '--name-only', ...(range ? [range] : ['HEAD']), '--', ...folders];
  const text = await runGit(top, args, { signal });
  for (const chunk of text.split('\x01')) {
    const nul = chunk.indexOf('\0');
    if (nul < 0) continue;
    const [sha, date] = chunk.slice(0, nul).split(' ');
    for (const name of chunk.slice(nul + 1).split('\0')) {
      const p = name.replace(/^\n/, '');
      if (p && !out.has(p)) out.set(p, { sha, date });
    }
  }
  return out;
}

export async function isAncestor(top: string, older: string, newer: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await runGit(top, ['merge-base', '--is-ancestor', older, newer], { signal });
    return true;
  } catch {
    return false;
  }
}

export type ChangeKind = 'M' | 'D' | 'R';
export interface FileChange {
  kind: ChangeKind;
  /** For a rename: the new path. */
  to?: string;
  /** A rename with edits (similarity under 100 %). */
  edited?: boolean;
}

/**
 * What changed between `base` and the working tree, by old path (`git diff -M --name-status`; the whole tree so a
 * rename's new name is seen even though only old names are anchored). Undefined when `base` is not in the local
 * history (a shallow clone, a garbage-collected commit).
 */
export async function changesSince(top: string, base: string, signal?: AbortSignal, filterCache?: FilterCache): Promise<Map<string, FileChange> | undefined> {
  let text: string;
  try {
    text = await runGit(top, [...LITERAL, 'diff', ...GIT_DIFF_SAFE, '-M', '--name-status', '-z', base], { signal, worktree: true, filterCache });
  } catch (err) {
    if (signal?.aborted) throw err;
    return undefined;
  }
  const out = new Map<string, FileChange>();
  const parts = text.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const status = parts[i];
    if (!status) continue;
    const k = status[0];
    if (k === 'R' || k === 'C') {
      const from = parts[++i];
      const to = parts[++i];
      if (k === 'R') out.set(from, { kind: 'R', to, edited: status !== 'R100' });
    } else {
      const p = parts[++i];
      if (k === 'D') out.set(p, { kind: 'D' });
      else if (k === 'M' || k === 'T') out.set(p, { kind: 'M' });
    }
  }
  return out;
}

/** One `-U0` hunk: `count` 0 is a pure insertion after (old side) or deletion before (new side) `start`. */
export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** Changed hunks per old path (`git diff -M -U0 base -- paths`, base vs the working tree). */
export async function changedLines(top: string, base: string, paths: string[], signal?: AbortSignal, filterCache?: FilterCache): Promise<Map<string, Hunk[]>> {
  const out = new Map<string, Hunk[]>();
  if (!paths.length) return out;
  const text = await runGit(top, [...LITERAL, 'diff', ...GIT_DIFF_SAFE, '-M', '-U0', '--no-color', base, '--', ...paths], { signal, worktree: true, filterCache });
  return parseHunks(text, out);
}

/**
 * Hunks per old path from `-U0` patch text. A hunk's own lines are skipped by count: a removed line that reads
 * `-- x` (an SQL or Lua comment) is `--- x` in the patch and must not start a new file.
 */
export function parseHunks(text: string, out = new Map<string, Hunk[]>()): Map<string, Hunk[]> {
  let current: Hunk[] | undefined;
  let body = 0;
  for (const line of text.split('\n')) {
    if (body > 0) {
      if (line.startsWith('-') || line.startsWith('+') || line.startsWith(' ')) {
        body--;
        continue;
      }
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      body = 0;
    }
    if (line.startsWith('--- ')) {
      const p = line.slice(4);
      current = p === '/dev/null' ? undefined : [];
      if (current) out.set(p.replace(/^a\//, ''), current);
    } else if (line.startsWith('@@') && current) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))?/.exec(line);
      if (!m) continue;
      const h = { oldStart: Number(m[1]), oldCount: m[2] === undefined ? 1 : Number(m[2]), newStart: Number(m[3]), newCount: m[4] === undefined ? 1 : Number(m[4]) };
      current.push(h);
      body = h.oldCount + h.newCount;
    } else if (line.startsWith('@@')) {
      // A file whose old side is /dev/null (added): its lines are skipped the same way.
      const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))?/.exec(line);
      if (m) body = (m[1] === undefined ? 1 : Number(m[1])) + (m[2] === undefined ? 1 : Number(m[2]));
    }
  }
  return out;
}

/** Does any hunk change (or insert inside) old lines [start, end]? */
export function touches(hunks: Hunk[] | undefined, start: number, end: number): boolean {
  if (!hunks) return false;
  return hunks.some((h) => (h.oldCount === 0 ? h.oldStart >= start && h.oldStart < end : h.oldStart <= end && h.oldStart + h.oldCount - 1 >= start));
}

/** Where old lines [start, end] are on the new side, given hunks that do not touch them. */
export function shifted(hunks: Hunk[] | undefined, start: number, end: number): [number, number] {
  let delta = 0;
  for (const h of hunks ?? []) {
    const before = h.oldCount === 0 ? h.oldStart < start : h.oldStart + h.oldCount - 1 < start;
    if (before) delta += h.newCount - h.oldCount;
  }
  return [start + delta, end + delta];
}

export interface PathHistory {
  commits: number;
  last?: { sha: string; date: string; subject: string };
  deletedIn?: string;
}

/** Commits since `base` (to HEAD) per path, newest first: counts, the last one, where a path was deleted. */
export async function historySince(top: string, base: string, paths: string[], signal?: AbortSignal): Promise<Map<string, PathHistory>> {
  const out = new Map<string, PathHistory>();
  if (!paths.length) return out;
  const text = await runGit(top, [...LITERAL, 'log', '-z', '--no-renames', '--format=%x01%h %cs %s', '--name-status', `${base}..HEAD`, '--', ...paths], { signal });
  for (const chunk of text.split('\x01')) {
    const nul = chunk.indexOf('\0');
    if (nul < 0) continue;
    const head = chunk.slice(0, nul);
    const [sha, date] = head.split(' ', 2);
    const subject = head.slice(sha.length + date.length + 2);
    const fields = chunk.slice(nul + 1).split('\0');
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const status = fields[i].replace(/^\n/, '');
      const p = fields[i + 1];
      if (!status || !p) continue;
      let h = out.get(p);
      if (!h) out.set(p, (h = { commits: 0 }));
      h.commits++;
      h.last ??= { sha, date, subject };
      if (status === 'D' && !h.deletedIn) h.deletedIn = sha;
    }
  }
  return out;
}

/** A file's content at a commit (`git show base:path`), or undefined when it did not exist there. */
export async function fileAt(top: string, commit: string, path: string, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return await runGit(top, ['cat-file', 'blob', `${commit}:${path}`], { signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    return undefined;
  }
}
