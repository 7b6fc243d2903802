import { runGit, GIT_DIFF_SAFE } from '../git/run';
import { parseHunks, type CommitRef, type FileChange, type Hunk, type PathHistory } from './gitQueries';

/**
 * What a few new commits on top of the last checked HEAD changed, from ONE `git log --raw -p -U0 -M` of
 * `prevHead..head` (two processes when several commits arrived: the log, and one `diff-tree` of the range). It
 * answers everything the update after a commit used to ask git for in eight processes: is it a fast-forward, which
 * files changed, the notes' new last commits, the range's name-status and `-U0` hunks, and the commits per path
 * for the reasons. Undefined — the caller then asks git the general way — whenever the answer is not simple: a
 * merge among the new commits, more than MAX_COMMITS of them, a history that is not a chain down to `prevHead`,
 * a quoted path, or output that does not parse.
 *
 * Working-tree state is not in here: these are tree-to-tree answers. The caller uses them only after proving the
 * files involved clean (their bytes hash to the blob ids below).
 */

/** Beyond this many new commits the general path runs (a pull of a long history; the patches would be large). */
const MAX_COMMITS = 32;
const LITERAL = ['-c', 'core.quotePath=false'];
const PATCH = [...GIT_DIFF_SAFE, '--raw', '-p', '-U0', '-M', '--full-index', '--no-color'];

export interface LoggedCommit {
  sha: string;
  short: string;
  date: string;
  subject: string;
  /** What `--no-renames --name-status` lists for it: a rename is its deletion and its addition. */
  entries: [status: string, path: string][];
}

export interface CommitDelta {
  /** New commits, newest first. */
  commits: LoggedCommit[];
  /** prevHead → head by old path, as `git diff -M --name-status prevHead` says for a clean working tree. */
  changes: Map<string, FileChange>;
  /** prevHead → head `-U0` hunks by old path, for every changed file. */
  hunks: Map<string, Hunk[]>;
  /** Every path the range touched (both names of a rename). */
  paths: Set<string>;
  /** For each path that exists at head among `paths`: its blob id there (what a clean working-tree file hashes to). */
  blobs: Map<string, string>;
  /** Paths among `paths` that head does not have. */
  gone: Set<string>;
  /** Paths whose change the caller cannot check by hashing (mode-only changes, pure renames): it must go the general way. */
  unprovable: Set<string>;
}

type Raw = { status: string; from: string; to?: string };

/** `:old new oldsha newsha STATUS\tpath[\tpath]` lines; undefined for a quoted path (rare; the general path handles it). */
function parseRaw(lines: string[]): Raw[] | undefined {
  const out: Raw[] = [];
  for (const line of lines) {
    if (!line.startsWith(':')) continue;
    const tab = line.indexOf('\t');
    if (tab < 0) return undefined;
    const meta = line.slice(1, tab).split(' ');
    const names = line.slice(tab + 1).split('\t');
    if (names.some((n) => n.startsWith('"'))) return undefined;
    const status = meta[4] ?? '';
    if (!/^[AMDTR]/.test(status)) return undefined; // copies, unmerged, unknown: not what a plain commit shows
    if ((meta[0] !== '100644' && meta[0] !== '100755' && meta[0] !== '000000') || (meta[1] !== '100644' && meta[1] !== '100755' && meta[1] !== '000000')) return undefined;
    out.push({ status, from: names[0], to: status[0] === 'R' ? names[1] : undefined });
  }
  return out;
}

/** Full blob ids of the new side, from the patch's `index <old>..<new>` lines (keyed by the `+++` path). */
function newBlobs(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  let pending: string | undefined;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) pending = undefined;
    else if (line.startsWith('index ') && pending === undefined) {
      const m = /^index [0-9a-f]+\.\.([0-9a-f]+)/.exec(line);
      pending = m?.[1];
    } else if (line.startsWith('+++ ') && pending) {
      const p = line.slice(4);
      if (p !== '/dev/null') out.set(p.replace(/^b\//, ''), pending);
      pending = undefined;
    }
  }
  return out;
}

function delta(commits: LoggedCommit[], raw: Raw[], patch: string): CommitDelta {
  const changes = new Map<string, FileChange>();
  const paths = new Set<string>();
  const gone = new Set<string>();
  const unprovable = new Set<string>();
  const blobs = newBlobs(patch);
  for (const r of raw) {
    const k = r.status[0];
    paths.add(r.from);
    if (r.to) paths.add(r.to);
    if (k === 'R') {
      changes.set(r.from, { kind: 'R', to: r.to, edited: r.status !== 'R100' });
      gone.add(r.from);
    } else if (k === 'D') {
      changes.set(r.from, { kind: 'D' });
      gone.add(r.from);
    } else if (k === 'M' || k === 'T') changes.set(r.from, { kind: 'M' });
    const now = r.to ?? r.from;
    if (k !== 'D' && !blobs.has(now)) unprovable.add(now);
  }
  return { commits, changes, hunks: parseHunks(patch), paths, blobs, gone, unprovable };
}

/** Splits `git log --raw -p` output into commits; each keeps its raw lines and its patch text. */
function splitLog(text: string): { commit: LoggedCommit; parents: string[]; raw: Raw[]; patch: string }[] | undefined {
  const out: { commit: LoggedCommit; parents: string[]; raw: Raw[]; patch: string }[] = [];
  for (const chunk of text.split('\x01').slice(1)) {
    const nl = chunk.indexOf('\n');
    const header = (nl < 0 ? chunk : chunk.slice(0, nl)).split('\x02');
    if (header.length < 5) return undefined;
    const [sha, short, date, parentList] = header;
    const subject = header.slice(4).join('\x02');
    const body = nl < 0 ? '' : chunk.slice(nl + 1);
    const lines = body.split('\n');
    const raw = parseRaw(lines);
    if (!raw) return undefined;
    const firstDiff = body.indexOf('\ndiff --git ');
    const patch = firstDiff < 0 ? '' : body.slice(firstDiff + 1);
    const entries: [string, string][] = [];
    for (const r of raw) {
      if (r.status[0] === 'R') entries.push(['D', r.from], ['A', r.to!]);
      else entries.push([r.status[0], r.from]);
    }
    out.push({ commit: { sha, short, date, subject, entries }, parents: parentList ? parentList.split(' ') : [], raw, patch });
  }
  return out;
}

/** The one question the update after a commit asks git (see the file comment). */
export const NewCommits = {
  async read(top: string, prevHead: string, head: string, signal?: AbortSignal): Promise<CommitDelta | undefined> {
    const format = '--format=%x01%H%x02%h%x02%cs%x02%P%x02%s';
    let text: string;
    try {
      text = await runGit(top, [...LITERAL, 'log', format, ...PATCH, `--max-count=${MAX_COMMITS + 1}`, `${prevHead}..${head}`, '--'], { signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      return undefined;
    }
    const logged = splitLog(text);
    if (!logged || !logged.length || logged.length > MAX_COMMITS) return undefined;
    // A chain: each commit's only parent is the next one down, the last one's is prevHead (so: a fast-forward).
    for (let i = 0; i < logged.length; i++) {
      const want = i + 1 < logged.length ? logged[i + 1].commit.sha : prevHead;
      if (logged[i].parents.length !== 1 || logged[i].parents[0] !== want) return undefined;
    }
    if (logged[0].commit.sha !== head) return undefined;
    const commits = logged.map((l) => l.commit);
    if (logged.length === 1) return delta(commits, logged[0].raw, logged[0].patch);
    // Several commits: the range as one diff (per-commit diffs do not compose into one rename detection).
    let range: string;
    try {
      range = await runGit(top, [...LITERAL, 'diff-tree', '-r', ...PATCH, prevHead, head, '--'], { signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      return undefined;
    }
    const raw = parseRaw(range.split('\n'));
    if (!raw) return undefined;
    const firstDiff = range.indexOf('diff --git ');
    return delta(commits, raw, firstDiff < 0 ? '' : range.slice(firstDiff));
  },
};

/** `git log --no-renames --name-status prevHead..HEAD -- paths` per path (historySince's answer), from the commits. */
export function historyFrom(commits: LoggedCommit[], paths: string[]): Map<string, PathHistory> {
  const wanted = new Set(paths);
  const out = new Map<string, PathHistory>();
  for (const c of commits) {
    for (const [status, p] of c.entries) {
      if (!wanted.has(p)) continue;
      let h = out.get(p);
      if (!h) out.set(p, (h = { commits: 0 }));
      h.commits++;
      h.last ??= { sha: c.short, date: c.date, subject: c.subject };
      if (status === 'D' && !h.deletedIn) h.deletedIn = c.short;
    }
  }
  return out;
}

/** lastChanges(folders, 'prevHead..head'): the newest commit touching each path under the folders ('.' = all). */
export function lastChangesFrom(commits: LoggedCommit[], folders: string[]): Map<string, CommitRef> {
  const out = new Map<string, CommitRef>();
  const under = (p: string) => folders.some((f) => f === '.' || p === f || p.startsWith(`${f}/`));
  for (const c of commits) for (const [, p] of c.entries) if (!out.has(p) && under(p)) out.set(p, { sha: c.sha, date: c.date });
  return out;
}
