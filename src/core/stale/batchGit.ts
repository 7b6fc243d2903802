import { runGit, GIT_DIFF_SAFE } from '../git/run';
import type { Anchor } from './types';
import type { ChangeKind, FileChange, FilterCache, Hunk, PathHistory } from './gitQueries';
import { parseHunks } from './gitQueries';

/**
 * The git answers a computation over MANY bases needs, asked once for all of them (a first scan sees one base per
 * note commit: ~100 bases × ~5 calls each took 86 s on a 5,000-commit repository). Calls, whatever the number of
 * bases:
 *  - `git rev-list --parents HEAD` (the DAG: which bases are in HEAD's history; "commits since base" by reachability);
 *  - `git diff-tree --stdin -r -M --name-status` with one `HEAD base` line per base (tree to tree: nothing runs
 *    against the working tree), and one `git diff HEAD -M --name-status` for the working tree, composed per path;
 *  - `git log --name-status HEAD -- <anchored paths>` for the reasons (counts, last commit, where deleted);
 *  - for line/symbol anchors whose file changed since their base: one `git diff-tree --stdin -p -U0` over those
 *    bases and files, and one `git cat-file --batch` for the files' text at their bases.
 * Files with uncommitted changes are not answered here for hunks (base→HEAD hunks are not base→working tree):
 * compute.ts asks git for those the usual way, as it does for any base this object does not know.
 */

const LITERAL = ['-c', 'core.quotePath=false'];
/** Bases per `-U0` patch call (see prefetchLines). */
const HUNK_GROUP = 8;

function parseNameStatus(parts: string[], from: number, out: Map<string, FileChange>, stop?: (s: string) => boolean): number {
  let i = from;
  for (; i < parts.length; i++) {
    const status = parts[i];
    if (!status) continue;
    if (stop?.(status)) return i;
    const k = status[0];
    if (k === 'R' || k === 'C') {
      const a = parts[++i];
      const b = parts[++i];
      if (k === 'R') out.set(a, { kind: 'R', to: b, edited: status !== 'R100' });
    } else {
      const p = parts[++i];
      if (k === 'D') out.set(p, { kind: 'D' });
      else if (k === 'M' || k === 'T') out.set(p, { kind: 'M' });
    }
  }
  return i;
}

/** base→HEAD then HEAD→working tree, as one change of the base's path (what `git diff -M base` would say). */
function compose(c1: FileChange | undefined, wt: Map<string, FileChange>, p: string): FileChange | undefined {
  if (!c1) return wt.get(p);
  if (c1.kind === 'D') return c1;
  const now = c1.kind === 'R' ? c1.to! : p;
  const c2 = wt.get(now);
  if (!c2) return c1;
  if (c2.kind === 'D') return { kind: 'D' };
  const kind: ChangeKind = c1.kind === 'R' || c2.kind === 'R' ? 'R' : 'M';
  const to = c2.kind === 'R' ? c2.to : c1.to;
  return kind === 'R' ? { kind, to, edited: true } : { kind: 'M' };
}

export class BatchGit {
  private readonly changes = new Map<string, Map<string, FileChange>>();
  private readonly hunks = new Map<string, Map<string, Hunk[]>>();
  private readonly texts = new Map<string, string | undefined>();
  private dirty = new Set<string>();
  /** The paths the one patch covered (for the bases in `hunks`). */
  private hunkPaths = new Map<string, Set<string>>();
  private parents = new Map<string, string[]>();
  /** Per path, the commits (newest first) that touched it: [sha, short, date, subject, status]. */
  private log = new Map<string, [string, string, string, string, string][]>();

  private constructor(private readonly top: string, private readonly head: string, private readonly signal?: AbortSignal) {}

  /** Undefined when there is nothing to batch (fewer than two bases in HEAD's history). */
  static async prepare(top: string, head: string, todo: Map<string, { anchors: Anchor[] }[]>, signal?: AbortSignal, filterCache?: FilterCache): Promise<BatchGit | undefined> {
    const b = new BatchGit(top, head, signal);
    const anchoredPaths = new Set<string>();
    for (const notes of todo.values()) for (const n of notes) for (const a of n.anchors) if (a.path) anchoredPaths.add(a.path);
    const [dag, wt] = await Promise.all([
      runGit(top, ['rev-list', '--parents', head], { signal }),
      runGit(top, [...LITERAL, 'diff', ...GIT_DIFF_SAFE, '-M', '--name-status', '-z', 'HEAD'], { signal, worktree: true, filterCache }),
    ]);
    for (const line of dag.split('\n')) {
      if (!line) continue;
      const [c, ...ps] = line.split(' ');
      b.parents.set(c, ps);
    }
    const wtChanges = new Map<string, FileChange>();
    parseNameStatus(wt.split('\0'), 0, wtChanges);
    for (const [p, c] of wtChanges) {
      b.dirty.add(p);
      if (c.to) b.dirty.add(c.to);
    }
    const bases = [...todo.keys()].filter((x) => b.parents.has(x) && x !== head);
    if (bases.length < 2) return undefined;

    // Tree-to-tree changes of every base.
    const input = bases.map((x) => `${head} ${x}\n`).join('');
    const names = await runGit(top, [...LITERAL, 'diff-tree', ...GIT_DIFF_SAFE, '--stdin', '--always', '-r', '-M', '--name-status', '-z'], { signal, input });
    const parts = names.split('\0');
    let i = 0;
    for (const base of bases) {
      // Each request's output starts with a line naming the commit (HEAD), then its changes.
      while (i < parts.length && parts[i] !== head) i++;
      const c1 = new Map<string, FileChange>();
      i = parseNameStatus(parts, i + 1, c1, (s) => s === head);
      const composed = new Map<string, FileChange>();
      for (const p of new Set([...c1.keys(), ...wtChanges.keys()])) {
        const c = compose(c1.get(p), wtChanges, p);
        if (c) composed.set(p, c);
      }
      b.changes.set(base, composed);
    }
    // The commits that touched the anchored files (and their new names), for the reasons.
    const logPaths = new Set(anchoredPaths);
    for (const ch of b.changes.values()) for (const p of anchoredPaths) { const to = ch.get(p)?.to; if (to) logPaths.add(to); }
    await Promise.all([logPaths.size ? b.readLog([...logPaths]).then(() => b.markLogged(logPaths)) : Promise.resolve(), b.prefetchLines(todo)]);
    return b;
  }

  private async readLog(paths: string[]): Promise<void> {
    // The whole history, filtered here: a pathspec of ~1,000 files made git match every commit's tree against each
    // (9 s on 5,000 commits; 0.5 s without). Merges list no files, so counts are those of a linear walk.
    const wanted = new Set(paths);
    const text = await runGit(this.top, [...LITERAL, 'log', '-z', '--no-renames', '--format=%x01%H %h %cs %s', '--name-status', this.head], { signal: this.signal });
    for (const chunk of text.split('\x01')) {
      const nul = chunk.indexOf('\0');
      if (nul < 0) continue;
      const headLine = chunk.slice(0, nul);
      const [sha, short, date] = headLine.split(' ', 3);
      const subject = headLine.slice(sha.length + short.length + date.length + 3);
      const fields = chunk.slice(nul + 1).split('\0');
      for (let k = 0; k + 1 < fields.length; k += 2) {
        const status = fields[k].replace(/^\n/, '');
        const p = fields[k + 1];
        if (!status || !p || !wanted.has(p)) continue;
        let list = this.log.get(p);
        if (!list) this.log.set(p, (list = []));
        list.push([sha, short, date, subject, status]);
      }
    }
  }

  /** Hunks and base texts for line/symbol anchors whose file changed (and is clean in the working tree). */
  private async prefetchLines(todo: Map<string, { anchors: Anchor[] }[]>): Promise<void> {
    const hunkBases: string[] = [];
    const pathsOf = new Map<string, Set<string>>();
    const blobs: string[] = [];
    for (const [base, notes] of todo) {
      const ch = this.changes.get(base);
      if (!ch) continue;
      const mine = new Set<string>();
      for (const n of notes) {
        for (const a of n.anchors) {
          if (a.kind === 'path') continue;
          const c = ch.get(a.path);
          if (!c || c.kind === 'D' || (c.kind === 'R' && !c.edited)) continue;
          if (this.dirty.has(a.path) || (c.to && this.dirty.has(c.to))) continue;
          mine.add(a.path);
          if (c.to) mine.add(c.to);
          if (a.kind === 'symbol') blobs.push(`${base}:${a.path}`);
        }
      }
      if (mine.size) {
        hunkBases.push(base);
        pathsOf.set(base, mine);
      }
    }
    if (!hunkBases.length) return;
    const uniqueBlobs = [...new Set(blobs)];
    // One patch per group of bases over the group's own files: a single patch over every base and every file would
    // diff each file at each base (86,000 file diffs here), one per base would start a process per base.
    const groups: string[][] = [];
    for (let i = 0; i < hunkBases.length; i += HUNK_GROUP) groups.push(hunkBases.slice(i, i + HUNK_GROUP));
    const patchGroup = async (group: string[]) => {
      const paths = new Set<string>();
      for (const b of group) for (const p of pathsOf.get(b)!) paths.add(p);
      const patch = await runGit(this.top, [...LITERAL, 'diff-tree', ...GIT_DIFF_SAFE, '--stdin', '--always', '-r', '-M', '-p', '-U0', '--no-color', '--', ...paths], { signal: this.signal, input: group.map((x) => `${this.head} ${x}\n`).join('') });
      // The output of each request starts with a line holding the commit named (HEAD) alone.
      const blocks = patch.split(new RegExp(`^${this.head}$`, 'm')).slice(1);
      group.forEach((base, k) => {
        this.hunks.set(base, parseHunks(blocks[k] ?? ''));
        this.hunkPaths.set(base, paths);
      });
    };
    const patches = (async () => {
      for (let i = 0; i < groups.length; i += 2) await Promise.all(groups.slice(i, i + 2).map(patchGroup));
    })();
    const cat = uniqueBlobs.length ? runGit(this.top, ['cat-file', '--batch'], { signal: this.signal, input: uniqueBlobs.join('\n') + '\n' }) : Promise.resolve('');
    const [, catText] = await Promise.all([patches, cat]);
    this.parseCat(catText, uniqueBlobs);
  }

  /** `git cat-file --batch` output: sizes are bytes, so it is read as bytes (a file that is not UTF-8 is not kept). */
  private parseCat(text: string, names: string[]): void {
    const buf = Buffer.from(text, 'utf8');
    let off = 0;
    for (const name of names) {
      const nl = buf.indexOf(10, off);
      if (nl < 0) return;
      const header = buf.subarray(off, nl).toString('utf8');
      off = nl + 1;
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.texts.set(name, undefined);
        continue;
      }
      const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
      if (!m) return; // out of step (a file that was not valid UTF-8): the rest is asked one by one
      const size = Number(m[2]);
      const body = buf.subarray(off, off + size).toString('utf8');
      off += size + 1;
      if (m[1] === 'blob' && !body.includes('\uFFFD')) this.texts.set(name, body);
      else if (m[1] !== 'blob') this.texts.set(name, undefined);
    }
  }

  has(base: string): boolean {
    return this.changes.has(base);
  }

  changesOf(base: string): Map<string, FileChange> | undefined {
    return this.changes.get(base);
  }

  /** Hunks base→working tree for `paths`, when every one is known here (clean in the working tree, prefetched). */
  hunksOf(base: string, paths: string[]): Map<string, Hunk[]> | undefined {
    if (!paths.length) return new Map();
    const covered = this.hunkPaths.get(base);
    if (!covered || paths.some((p) => this.dirty.has(p) || !covered.has(p))) return undefined;
    return this.hunks.get(base);
  }

  /** A file's text at a base when prefetched: `null` means "not asked here". */
  textAt(base: string, path: string): string | undefined | null {
    const k = `${base}:${path}`;
    return this.texts.has(k) ? this.texts.get(k) : null;
  }

  /** What `git log base..HEAD -- paths` says per path, computed from the one log and the DAG. */
  historyOf(base: string, paths: string[]): Map<string, PathHistory> | undefined {
    if (paths.some((p) => !this.log.has(p) && !this.logged(p))) return undefined;
    const before = this.ancestors(base);
    const out = new Map<string, PathHistory>();
    for (const p of paths) {
      for (const [sha, short, date, subject, status] of this.log.get(p) ?? []) {
        if (before.has(sha)) continue;
        let h = out.get(p);
        if (!h) out.set(p, (h = { commits: 0 }));
        h.commits++;
        h.last ??= { sha: short, date, subject };
        if (status === 'D' && !h.deletedIn) h.deletedIn = short;
      }
    }
    return out;
  }

  private readonly loggedPaths = new Set<string>();
  private logged(p: string): boolean {
    return this.loggedPaths.has(p);
  }

  private readonly ancestorSets = new Map<string, Set<string>>();
  private ancestors(base: string): Set<string> {
    let s = this.ancestorSets.get(base);
    if (s) return s;
    s = new Set<string>();
    const stack = [base];
    while (stack.length) {
      const c = stack.pop()!;
      if (s.has(c)) continue;
      s.add(c);
      for (const p of this.parents.get(c) ?? []) if (!s.has(p)) stack.push(p);
    }
    this.ancestorSets.set(base, s);
    return s;
  }

  /** Marks the paths the one log covered (a path it never saw has no commits, which is an answer). */
  markLogged(paths: Iterable<string>): void {
    for (const p of paths) this.loggedPaths.add(p);
  }
}
