import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Project } from '../project';
import { throwIfCancelled } from '../host/cancel';
import { noteFilePath } from '../vault/notePath';
import { noteSources } from '../vault/noteSources';
import { isShallow, shallowBoundary, type RepoLocation } from './gitHead';
import { extractCandidates, noteText } from './extract';
import { resolveAll } from './resolve';
import { BatchGit } from './batchGit';
import { computeForBase, type NoteAnchors, type Verdict } from './compute';
import { isAncestor, lastChanges, trackedFiles, type CommitRef, type FilterCache, type TrackedFile } from './gitQueries';
import { runGit, GIT_DIFF_SAFE } from '../git/run';
import { DefinitionCache } from './symbolIndex';
import { ensureTables, readMeta, readNotes, writeMeta, writeNotes, type StoredNote } from './store';
import type { StalenessStatus } from './types';
import { afterCommit } from './afterCommit';
import { MAX_STAMPS, stampHolds, stampOf, summary, toPosix, type DocRow, type StoredState, type UpdateResult } from './updateState';

/**
 * The staleness update's slow path (loaded only when the clean-scan test in update.ts fails): re-extracts the
 * anchors of changed notes, finds bases, and recomputes only the notes whose verdict can have changed.
 */

function readState(project: Project): StoredState {
  const idx = project.index;
  // Read first: a scan by another process after this read leaves a newer generation, which the next check notices.
  const generation = String(idx.get("SELECT value FROM meta WHERE key = 'generation'")?.value ?? '0');
  return {
    generation,
    notes: readNotes(idx),
    docs: idx.all('SELECT id, path, hash, frontmatter FROM documents').map((r) => ({ id: Number(r.id), path: String(r.path), hash: String(r.hash), frontmatter: String(r.frontmatter) })),
    prevHead: readMeta(idx, 'head') ?? '',
    stamps: JSON.parse(readMeta(idx, 'stamps') ?? '{}') as Record<string, string>,
    dirty: JSON.parse(readMeta(idx, 'dirty') ?? '[]') as string[],
  };
}

export async function refresh(project: Project, repo: RepoLocation, head: string, kept: StoredState | undefined, signal: AbortSignal | undefined, t0: number, watched: Set<string> | 'all' = 'all'): Promise<{ result: UpdateResult; state: StoredState }> {
  const idx = project.index;
  const { notes: stored, docs, prevHead, stamps, dirty: dirtyBefore, generation } = kept ?? readState(project);
  const byId = new Map(stored.map((n) => [n.docId, n]));
  const changedDocs = docs.filter((d) => byId.get(d.id)?.hash !== d.hash || byId.get(d.id)?.path !== d.path);
  const top = repo.top;
  // Each note's repository path, worked out once per path while the state is kept.
  const repoPaths = kept?.repoPaths ?? new Map<string, string | undefined>();
  const repoPathOf = (indexPath: string): string | undefined => {
    if (repoPaths.has(indexPath)) return repoPaths.get(indexPath);
    const rel = toPosix(relative(top, noteFilePath(project.paths, indexPath)));
    const out = rel.startsWith('../') || rel === '..' ? undefined : rel;
    repoPaths.set(indexPath, out);
    return out;
  };
  const folders = noteSources(project.paths, project.config)
    .map((s) => toPosix(relative(top, s.root)))
    .filter((f) => f !== '..' && !f.startsWith('../'))
    .map((f) => f || '.');
  const cache = kept?.defs ?? new DefinitionCache(idx);
  const warnings: string[] = [];

  const changedIds = new Set(changedDocs.map((d) => d.id));
  // 1. Anchors of notes whose bytes changed.
  let tracked: Map<string, TrackedFile> | undefined;
  const next = new Map<number, StoredNote>();
  if (changedDocs.length) {
    tracked = await trackedFiles(top, signal);
    const extracted = new Map<number, ReturnType<typeof extractCandidates>>();
    for (const d of changedDocs) {
      let text = '';
      try {
        text = readFileSync(noteFilePath(project.paths, d.path), 'utf8');
      } catch {
        /* gone since the scan: no anchors until the next scan sees it */
      }
      extracted.set(d.id, extractCandidates(noteText(text), repoPathOf(d.path)));
      throwIfCancelled(signal, 'staleness update');
    }
    const resolved = await resolveAll({ top, tracked, cache, signal }, extracted);
    for (const d of changedDocs) {
      const r = resolved.get(d.id)!;
      for (const w of r.warnings) warnings.push(`${d.path}: ${w}`);
      next.set(d.id, { docId: d.id, path: d.path, hash: d.hash, anchors: r.anchors, texts: r.texts, warnings: r.warnings, lastCommit: '', base: '', state: r.anchors.length ? 'unchecked' : 'none' });
    }
  }
  for (const d of docs) if (!next.has(d.id) && byId.has(d.id)) next.set(d.id, { ...byId.get(d.id)! });
  // Only rows whose content changes are written back (500 JSON rows cost more than the git calls).

  // 2. What moved since the last check, asked concurrently: is the new HEAD a fast-forward, which files differ from
  // HEAD now, which changed between the two HEADs, and which notes the new commits changed (kept after a fast-forward).
  const anchored = [...next.values()].filter((n) => n.anchors.length);
  const moved = !!prevHead && prevHead !== head;
  const askNotes = anchored.length > 0 && folders.length > 0;
  // The working-tree calls of this update read the filter config once between them.
  const filterCache: FilterCache = {};
  const names = (args: string[], worktree: boolean) =>
    runGit(top, ['-c', 'core.quotePath=false', 'diff', ...GIT_DIFF_SAFE, '--no-renames', '--name-only', '-z', ...args], { signal, worktree, filterCache }).then((t) => t.split('\0').filter(Boolean));
  // A host's update after a few new commits: one log of them answers all four, when the working tree allows.
  const quick = moved && kept && !changedDocs.length
    ? await afterCommit({ top, prevHead, head, dirtyAll: kept.dirtyAll, dirtyBefore, stamps, watched, anchored, notePaths: new Set(docs.map((d) => repoPathOf(d.path)).filter((p): p is string => !!p)), folders, signal })
    : undefined;
  const [fastForward, dirtyList, committedDelta, newCommits] = quick
    ? [true, [...quick.dirtyNow], quick.committedDelta, askNotes ? quick.newCommits : new Map<string, CommitRef>()]
    : await Promise.all([
      moved ? isAncestor(top, prevHead, head, signal) : Promise.resolve(false),
      names(['HEAD'], true),
      moved ? names([prevHead, head], false).catch(() => [] as string[]) : Promise.resolve([] as string[]),
      moved && askNotes ? lastChanges(top, folders, `${prevHead}..${head}`, signal).catch(() => new Map<string, CommitRef>()) : Promise.resolve(new Map<string, CommitRef>()),
    ]);
  const full = !prevHead || (moved && !fastForward);
  const dirtyNow = new Set(dirtyList);
  // Bases: one log walk of the note folders on a first or rewritten history; otherwise the new commits, plus a walk
  // limited to notes never seen committed (new notes).
  let commits = new Map<string, CommitRef>(fastForward ? newCommits : []);
  if (askNotes && full) commits = await lastChanges(top, folders, undefined, signal);
  else if (askNotes) {
    const unseen = anchored.filter((n) => changedIds.has(n.docId) && !byId.get(n.docId)?.lastCommit).map((n) => repoPathOf(n.path)).filter((p): p is string => !!p && !commits.has(p));
    if (unseen.length) for (const [p, c] of await lastChanges(top, unseen.length > 200 ? folders : unseen, undefined, signal)) if (!commits.has(p)) commits.set(p, c);
  }

  // 3. Files changed since the last check: committed since its HEAD, dirty now, or dirty then.
  const touched = new Set<string>(dirtyNow);
  for (const p of dirtyBefore) touched.add(p);
  // (After new commits the stamps were just checked: only the committed files can have moved.)
  if (!quick) for (const [p, s] of Object.entries(stamps)) if (!stampHolds(top, p, s)) touched.add(p);
  for (const p of committedDelta) touched.add(p);

  const cut = shallowBoundary(repo);
  const todo = new Map<string, NoteAnchors[]>();
  // Notes checked last time, unchanged since, with the same base, whose files were clean then: compared from that
  // HEAD in one go (one diff for all of them, not one per base).
  const sinceLast: NoteAnchors[] = [];
  const dirtyThen = new Set(dirtyBefore);
  const fromLast = !!prevHead && (prevHead === head || fastForward);
  const docById = new Map(docs.map((d) => [d.id, d]));
  // Each document's `verified_at`, parsed once while the documents are the same ones (a kept state's).
  const verifiedOf = kept?.verified ?? new Map<number, string | undefined>();
  for (const n of anchored) {
    const doc = docById.get(n.docId);
    const rp = repoPathOf(n.path);
    let verified = verifiedOf.get(n.docId);
    if (verified === undefined && doc && !verifiedOf.has(n.docId)) verifiedOf.set(n.docId, (verified = verifiedAt(doc.frontmatter)));
    const seen = rp ? commits.get(rp)?.sha ?? n.lastCommit : '';
    n.lastCommit = seen;
    const last = cut.has(seen) ? '' : seen;
    // A note being edited (or never committed) describes the code as it is now: fresh until committed or verified.
    const dirty = rp !== undefined && (dirtyNow.has(rp) || (!seen && !cut.size));
    const base = verified ?? (dirty ? 'WORKTREE' : last);
    const baseMoved = base !== n.base;
    n.base = base;
    if (base === 'WORKTREE') {
      n.state = 'fresh';
      n.info = undefined;
      continue;
    }
    if (!base) {
      n.state = 'unknown';
      n.info = undefined;
      continue;
    }
    const affected = full || baseMoved || n.state === 'unchecked' || n.anchors.some((a) => touched.has(a.path));
    if (!affected) continue;
    if (fromLast && !baseMoved && (n.state === 'fresh' || n.state === 'stale') && !changedIds.has(n.docId) && !n.anchors.some((a) => dirtyThen.has(a.path))) {
      sinceLast.push({ docId: n.docId, anchors: n.anchors, texts: n.texts, stale: n.info?.anchors });
      continue;
    }
    let list = todo.get(base);
    if (!list) todo.set(base, (list = []));
    list.push({ docId: n.docId, anchors: n.anchors, texts: n.texts });
  }

  // 4. One computation per distinct base (two at a time: git is the cost, and the machine is shared).
  const bases = [...todo.keys()];
  const verdicts = new Map<number, Verdict>();
  // Many bases (a first scan, a rewritten history): git is asked once for all of them, not ~5 times per base.
  const batch = bases.length >= 2 ? await BatchGit.prepare(top, head, todo, signal, filterCache) : undefined;
  for (let i = 0; i < bases.length; i += 2) {
    const part = bases.slice(i, i + 2);
    const results = await Promise.all(part.map((b) => computeForBase({ top, cache, signal, batch, filterCache }, b, todo.get(b)!)));
    for (const r of results) for (const [id, v] of r) verdicts.set(id, v);
  }
  if (sinceLast.length) {
    const likely = new Set<string>();
    for (const n of sinceLast) for (const a of n.anchors) if (a.kind !== 'path' && touched.has(a.path)) likely.add(a.path);
    for (const [id, v] of await computeForBase({ top, cache, signal, filterCache, known: quick?.known }, prevHead, sinceLast, true, [...likely])) {
      const n = next.get(id)!;
      // The reasons count commits since the last check; the note's own base is what "since" names.
      if (v.info) v.info = { ...v.info, since: n.base.slice(0, 7), base: n.base };
      verdicts.set(id, v);
    }
  }
  for (const [id, v] of verdicts) {
    const n = next.get(id)!;
    n.state = v.state;
    n.info = v.info;
    n.anchors = v.anchors;
    n.texts = v.texts;
  }

  // 5. Status and the fast-path stamps.
  const notes = [...next.values()];
  const unknown = notes.filter((n) => n.state === 'unknown').length;
  const withAnchors = notes.filter((n) => n.anchors.length && n.base !== 'WORKTREE').length;
  const status: StalenessStatus = withAnchors > 0 && unknown === withAnchors && isShallow(repo)
    ? { enabled: false, reason: 'shallow clone: the commits the notes were written at are not in the local history (git fetch --unshallow)' }
    : { enabled: true, head, unknown };
  const newStamps: Record<string, string> = {};
  const anchoredPaths = new Set<string>();
  const now = Date.now();
  for (const n of notes) {
    for (const a of n.anchors) {
      if (a.absent || anchoredPaths.has(a.path) || anchoredPaths.size >= MAX_STAMPS) continue;
      anchoredPaths.add(a.path);
      // Unchanged stamps are kept as they are (no read of a racy file that nothing touched).
      newStamps[a.path] = !touched.has(a.path) && stamps[a.path] !== undefined && quick ? stamps[a.path] : stampOf(top, a.path, now);
    }
  }
  const dirtyAnchored = [...dirtyNow].filter((p) => anchoredPaths.has(p));
  const result = summary(notes, status, t0, warnings);
  const meta: Record<string, string> = {
    head,
    stamps: JSON.stringify(newStamps),
    dirty: JSON.stringify(dirtyAnchored),
    status: JSON.stringify(status),
    counts: JSON.stringify([result.checked, result.stale]),
    // The documents this check read: the scanner bumps the generation whenever it writes them.
    generation,
  };
  idx.write(() => {
    // A kept state's tables are there: the index file is the one its check wrote.
    if (!kept) ensureTables(idx);
    // Rows of removed documents; the documents of a kept state are those of the last check, which removed them.
    if (!kept) idx.run(`DELETE FROM stale_notes WHERE doc_id NOT IN (SELECT id FROM documents)`);
    writeNotes(idx, notes.filter((n) => !unchanged(n, byId.get(n.docId))));
    cache.flush();
    for (const [k, v] of Object.entries(meta)) if (kept?.meta?.[k] !== v) writeMeta(idx, k, v);
  });
  result.ms = performance.now() - t0;
  return { result, state: { notes, docs, prevHead: head, stamps: newStamps, dirty: dirtyAnchored, dirtyAll: [...dirtyNow], generation, defs: cache, meta, verified: verifiedOf, repoPaths } };
}

/**
 * Whether a row is what was stored. Fields a recomputation did not replace are the stored objects themselves (the
 * rows are shallow copies), so most rows compare by reference; only replaced fields are compared as JSON.
 */
function unchanged(n: StoredNote, old: StoredNote | undefined): boolean {
  if (!old) return false;
  if (n.path !== old.path || n.hash !== old.hash || n.lastCommit !== old.lastCommit || n.base !== old.base || n.state !== old.state) return false;
  const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
  return same(n.anchors, old.anchors) && same(n.texts, old.texts) && same(n.warnings, old.warnings) && same(n.info, old.info);
}

const VERIFIED = /^[0-9a-f]{7,64}$/i;

function verifiedAt(frontmatter: string): string | undefined {
  try {
    const v = (JSON.parse(frontmatter) as Record<string, unknown>).verified_at;
    const s = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
    return VERIFIED.test(s) ? s.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}
