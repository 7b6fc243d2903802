import type { Anchor, StaleAnchor, StaleInfo } from './types';
import { changedLines, changesSince, fileAt, filesWithWordsAt, historySince, shifted, touches, type FileChange, type FilterCache, type Hunk, type PathHistory } from './gitQueries';
import { pickDefinition, readWorkingText, SOURCE_GLOBS, type DefinitionCache, type Located } from './symbolIndex';
import type { Definition } from './definitions';
import type { BatchGit } from './batchGit';

/**
 * The verdict for every note sharing one base, from one whole-tree `git diff -M --name-status <base>` (working
 * tree included, so uncommitted edits count), one `-U0` diff of the anchored files that need line ranges, and one
 * `git log <base>..HEAD` over the stale anchors' paths for the reasons. A base missing from the local history makes
 * the notes `unknown`, never stale.
 */

export interface NoteAnchors {
  docId: number;
  anchors: Anchor[];
  texts: string[];
  /** With `fromLastCheck`: the anchors found stale at the last check (they stay stale; their counts grow). */
  stale?: StaleAnchor[];
}

export interface Verdict {
  state: 'fresh' | 'stale' | 'unknown';
  info?: StaleInfo;
  /** The anchors with renames followed (and absent paths that turned out never to exist dropped). */
  anchors: Anchor[];
  texts: string[];
}

export interface ComputeContext {
  top: string;
  cache: DefinitionCache;
  signal?: AbortSignal;
  /** Answers prefetched for many bases at once (a first scan); anything it does not know is asked as usual. */
  batch?: BatchGit;
  /** Shared by the update's working-tree git calls (config read once). */
  filterCache?: FilterCache;
  /**
   * The answers for one base already known without asking git (after a fast-forward: the last checked HEAD, from
   * the one log of the new commits, every file involved proven clean in the working tree).
   */
  known?: KnownBase;
}

export interface KnownBase {
  base: string;
  changes: Map<string, FileChange>;
  hunks: Map<string, Hunk[]>;
  history(paths: string[]): Map<string, PathHistory>;
}

type Finding = { i: number; kind: 'changed' | 'deleted' | 'removed'; paths: string[]; prev?: StaleAnchor; keep?: boolean; shownPath?: string };

/**
 * `fromLastCheck`: `base` is the HEAD of the last check and the notes' bases have not moved since, so ranges are
 * the anchors' `current` ones (no need to read the files at the base), and anchors stale then stay stale with
 * their commit counts grown by what this diff adds.
 */
export async function computeForBase(ctx: ComputeContext, base: string, notes: NoteAnchors[], fromLastCheck = false, likelyLinePaths: string[] = []): Promise<Map<number, Verdict>> {
  const out = new Map<number, Verdict>();
  const known = ctx.known?.base === base ? ctx.known : undefined;
  // The hunks of files the caller expects to need are asked for alongside the name-status diff (one round trip less).
  const early = likelyLinePaths.length && !known ? changedLines(ctx.top, base, likelyLinePaths, ctx.signal, ctx.filterCache) : undefined;
  early?.catch(() => undefined);
  const changes = known?.changes ?? ctx.batch?.changesOf(base) ?? (await changesSince(ctx.top, base, ctx.signal, ctx.filterCache));
  if (!changes) {
    for (const n of notes) out.set(n.docId, { state: 'unknown', anchors: n.anchors, texts: n.texts });
    return out;
  }
  const { atBase, definedNow } = fromLastCheck ? { atBase: new Map<string, Located[]>(), definedNow: new Map<string, Set<string>>() } : await absentAtBase(ctx, base, notes);
  // Pass 1: follow renames, drop absent paths the base never had, find what needs line-level evidence.
  const work = notes.map((n) => {
    const anchors: Anchor[] = [];
    const texts: string[] = [];
    const olds: string[] = [];
    const found: Finding[] = [];
    const needLines: number[] = [];
    const prevStale = new Map((fromLastCheck ? n.stale ?? [] : []).map((x) => [`${x.anchor}\0${x.path}`, x]));
    n.anchors.forEach((a, k) => {
      const ch: FileChange | undefined = changes.get(a.path);
      const prev = prevStale.get(`${n.texts[k]}\0${a.path}`);
      if (a.kind === 'symbol' && a.absent && !fromLastCheck) {
        // Defined nowhere when the note was read: stale exactly when the base defined it once and it is still gone.
        const { def } = pickDefinition(atBase.get(a.symbol!), a.container, a.path || undefined);
        if (!def) return;
        if (definedNow.get(def.path)?.has(a.symbol!)) return;
        found.push({ i: anchors.length, kind: 'removed', paths: [def.path], shownPath: def.path });
        anchors.push(a);
        texts.push(n.texts[k]);
        olds.push(a.path);
        return;
      }
      // Never existed at the base either: not an anchor (unless it was found deleted at the last check).
      if (a.absent && !ch && !prev) return;
      const i = anchors.length;
      // A range from an earlier check means nothing against another base: recomputed from the base's own numbering.
      const current = fromLastCheck ? a.current : undefined;
      const moved = ch?.kind === 'R' ? { ...a, path: ch.to!, absent: undefined, current } : { ...a, absent: a.absent && ch?.kind !== 'D' ? undefined : a.absent, current };
      anchors.push(moved);
      texts.push(n.texts[k]);
      olds.push(a.path);
      const paths = ch?.kind === 'R' ? [a.path, ch.to!] : [a.path];
      if (!ch || (ch.kind === 'R' && !ch.edited)) {
        if (prev) found.push({ i, kind: prev.change ?? 'changed', paths, prev, keep: true });
        return;
      }
      if (ch.kind === 'D') found.push({ i, kind: a.kind === 'symbol' ? 'removed' : 'deleted', paths: [a.path], prev });
      else if (a.kind === 'path' || (prev && a.kind === 'lines')) found.push({ i, kind: 'changed', paths, prev });
      else {
        if (prev) found.push({ i, kind: 'changed', paths, prev }); // a symbol: needLines still asks whether it is gone
        needLines.push(i);
      }
    });
    return { n, anchors, texts, olds, found, needLines };
  });

  const linePaths = new Set<string>();
  for (const w of work) for (const i of w.needLines) linePaths.add(w.olds[i]).add(w.anchors[i].path);
  const asked = new Set(likelyLinePaths);
  const batched = known?.hunks ?? (early ? undefined : ctx.batch?.hunksOf(base, [...linePaths]));
  const hunks = batched ?? (early && [...linePaths].every((p) => asked.has(p)) ? await early : await changedLines(ctx.top, base, [...linePaths], ctx.signal, ctx.filterCache));
  const baseDefs = new Map<string, Definition[]>();
  const nowDefs = new Map<string, Definition[] | undefined>();
  for (const w of work) {
    for (const i of w.needLines) {
      const a = w.anchors[i];
      const old = w.olds[i];
      const paths = old === a.path ? [old] : [old, a.path];
      const hs = hunks.get(old);
      const already = w.found.find((f) => f.i === i && f.prev);
      if (already) {
        // Stale before and touched again: it stays stale; only a symbol that is gone now changes what is said.
        const text = readWorkingText(ctx.top, a.path);
        const defs = text === undefined ? [] : await ctx.cache.of(a.path, text);
        if (!defs.some((d) => d.name === a.symbol)) already.kind = 'removed';
        continue;
      }
      const [from, to] = fromLastCheck && a.current ? a.current : [a.startLine ?? 1, a.endLine ?? a.startLine ?? 1];
      if (a.kind === 'lines') {
        if (touches(hs, from, to)) w.found.push({ i, kind: 'changed', paths });
        else w.anchors[i] = { ...a, current: shifted(hs, from, to) };
        continue;
      }
      const name = a.symbol!;
      let atBase: { startLine: number; endLine: number } | undefined = { startLine: from, endLine: to };
      if (!fromLastCheck) {
        if (!baseDefs.has(old)) {
          const pre = ctx.batch?.textAt(base, old);
          const text = pre === null || pre === undefined && !ctx.batch?.has(base) ? await fileAt(ctx.top, base, old, ctx.signal) : pre;
          baseDefs.set(old, text === undefined ? [] : await ctx.cache.of(old, text));
        }
        atBase = nearest(baseDefs.get(old)!.filter((d) => d.name === name), a.startLine ?? 1);
      }
      if (!atBase) continue; // not defined at the base: nothing the note could have described there
      if (!nowDefs.has(a.path)) {
        const text = readWorkingText(ctx.top, a.path);
        nowDefs.set(a.path, text === undefined ? undefined : await ctx.cache.of(a.path, text));
      }
      const now = nowDefs.get(a.path)?.filter((d) => d.name === name) ?? [];
      if (!now.length) w.found.push({ i, kind: 'removed', paths });
      else if (touches(hs, atBase.startLine, atBase.endLine)) w.found.push({ i, kind: 'changed', paths });
      else {
        const [s0] = shifted(hs, atBase.startLine, atBase.endLine);
        const d = nearest(now, s0)!;
        w.anchors[i] = { ...a, current: [d.startLine, d.endLine] };
      }
    }
  }

  const historyPaths = new Set<string>();
  for (const w of work) for (const f of w.found) for (const p of f.paths) historyPaths.add(p);
  const history = known?.history([...historyPaths]) ?? (fromLastCheck ? undefined : ctx.batch?.historyOf(base, [...historyPaths])) ?? (await historySince(ctx.top, base, [...historyPaths], ctx.signal));
  for (const w of work) {
    if (!w.found.length) {
      out.set(w.n.docId, { state: 'fresh', anchors: w.anchors, texts: w.texts });
      continue;
    }
    w.found.sort((x, y) => x.i - y.i);
    const stale: StaleAnchor[] = w.found.map((f) => {
      const h = merged(f.paths, history);
      const commits = h.commits + (f.prev?.commits ?? 0);
      const reason = f.keep && f.prev ? f.prev.reason : reasonFor(w.texts[f.i], w.anchors[f.i], f, h, commits);
      return { anchor: w.texts[f.i], path: f.shownPath ?? (f.prev?.path || w.anchors[f.i].path), reason, change: f.kind, commits };
    });
    const more = stale.length > 1 ? ` (+${stale.length - 1} more)` : '';
    out.set(w.n.docId, { state: 'stale', anchors: w.anchors, texts: w.texts, info: { reason: stale[0].reason + more, since: base.slice(0, 7), base, anchors: stale } });
  }
  return out;
}

/** Where the notes' absent names were defined at `base`: one grep there, then the matching files parsed (cached). */
async function absentAtBase(ctx: ComputeContext, base: string, notes: NoteAnchors[]): Promise<{ atBase: Map<string, Located[]>; definedNow: Map<string, Set<string>> }> {
  const out = new Map<string, Located[]>();
  const definedNow = new Map<string, Set<string>>();
  const names = new Set<string>();
  for (const n of notes) for (const a of n.anchors) if (a.kind === 'symbol' && a.absent && a.symbol) names.add(a.symbol);
  if (!names.size) return { atBase: out, definedNow };
  let files: string[];
  try {
    files = await filesWithWordsAt(ctx.top, base, [...names].slice(0, 400), SOURCE_GLOBS, ctx.signal);
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return { atBase: out, definedNow };
  }
  for (const f of files.slice(0, 200)) {
    const text = await fileAt(ctx.top, base, f, ctx.signal);
    if (text === undefined) continue;
    for (const d of await ctx.cache.of(f, text)) {
      if (!names.has(d.name)) continue;
      let list = out.get(d.name);
      if (!list) out.set(d.name, (list = []));
      list.push({ ...d, path: f });
    }
  }
  // The same names defined in those files now (a name that came back is not "removed").
  for (const f of new Set([...out.values()].flat().map((d) => d.path))) {
    const text = readWorkingText(ctx.top, f);
    definedNow.set(f, new Set(text === undefined ? [] : (await ctx.cache.of(f, text)).map((d) => d.name)));
  }
  return { atBase: out, definedNow };
}

function nearest(defs: Definition[], line: number): Definition | undefined {
  let best: Definition | undefined;
  for (const d of defs) if (!best || Math.abs(d.startLine - line) < Math.abs(best.startLine - line)) best = d;
  return best;
}

function merged(paths: string[], history: Map<string, PathHistory>): PathHistory {
  const h: PathHistory = { commits: 0 };
  for (const p of paths) {
    const x = history.get(p);
    if (!x) continue;
    h.commits += x.commits;
    if (x.last && (!h.last || x.last.date > h.last.date)) h.last = x.last;
    h.deletedIn ??= x.deletedIn;
  }
  return h;
}

function reasonFor(text: string, a: Anchor, f: Finding, h: PathHistory, commits: number): string {
  const shown = `\`${text}\``;
  if (f.kind === 'deleted') return h.deletedIn ? `${shown} was deleted in ${h.deletedIn}` : `${shown} was deleted (uncommitted, in the working tree)`;
  if (f.kind === 'removed') {
    const name = `\`${a.symbol ?? text}\``;
    const where = h.deletedIn ?? h.last?.sha;
    return where ? `${name} no longer exists (removed in ${where})` : `${name} no longer exists (removed in the working tree, uncommitted)`;
  }
  const what = a.kind === 'lines' ? `${shown} (those lines)` : shown;
  if (!h.last) return f.prev ? f.prev.reason : `${what} has uncommitted changes since this note`;
  const plural = commits === 1 ? 'commit' : 'commits';
  return `${what} changed in ${commits} ${plural} since this note (last ${h.last.sha} ${h.last.date} '${h.last.subject}')`;
}
