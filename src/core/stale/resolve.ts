import { lstatSync, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { Anchor } from './types';
import type { AnchorCandidate } from './extract';
import type { TrackedFile } from './gitQueries';
import { locateNames, pickDefinition, type DefinitionCache, type Located } from './symbolIndex';

/**
 * Keeps the candidates the repository confirms. A path must be a tracked regular file (not a symlink, submodule or
 * binary file; an ignored file is never tracked); a path absent from the working tree is kept as `absent` only
 * when written with a folder (`src/old.ts`) — it then counts if the note's base had it; a name defined nowhere now is
 * kept the same way (it counts if the base defined it exactly once: it was removed since). A symbol must resolve to
 * exactly one definition; ambiguous or unknown names are not anchors (for explicit `anchors:` entries the note
 * gets a warning saying which, so its author can pin it as `path#name`).
 */

/** A note naming more than this keeps the first ones and says so: staleness cost stays bounded per note. */
export const MAX_ANCHORS_PER_NOTE = 200;
/** Names defined nowhere now are looked up at the note's base (a grep and parses there): a few per note. */
export const MAX_ABSENT_SYMBOLS = 20;

export interface ResolvedAnchors {
  anchors: Anchor[];
  texts: string[];
  warnings: string[];
}

export interface ResolveContext {
  top: string;
  tracked: Map<string, TrackedFile>;
  cache: DefinitionCache;
  signal?: AbortSignal;
}

function isBinaryOrOdd(top: string, path: string, memo: Map<string, boolean>): boolean {
  let v = memo.get(path);
  if (v !== undefined) return v;
  v = true;
  try {
    const abs = join(top, path);
    if (lstatSync(abs).isFile()) {
      const fd = openSync(abs, 'r');
      try {
        const buf = Buffer.alloc(8000);
        const n = readSync(fd, buf, 0, buf.length, 0);
        v = buf.subarray(0, n).includes(0);
      } finally {
        closeSync(fd);
      }
    }
  } catch {
    v = true;
  }
  memo.set(path, v);
  return v;
}

export async function resolveAll(ctx: ResolveContext, notes: Map<number, { candidates: AnchorCandidate[]; truncated: boolean }>): Promise<Map<number, ResolvedAnchors>> {
  const names = new Set<string>();
  for (const { candidates } of notes.values()) for (const c of candidates) if (c.ref.kind === 'symbol') names.add(c.ref.name);
  const located = names.size ? await locateNames(ctx.top, names, ctx.tracked, ctx.cache, ctx.signal) : new Map<string, Located[]>();
  const binary = new Map<string, boolean>();
  const out = new Map<number, ResolvedAnchors>();
  for (const [docId, { candidates, truncated }] of notes) {
    const r: ResolvedAnchors = { anchors: [], texts: [], warnings: [] };
    const seen = new Set<string>();
    let dropped = 0;
    let absentSymbols = 0;
    const add = (a: Anchor, text: string) => {
      const key = `${a.kind}\0${a.path}\0${a.startLine ?? ''}\0${a.endLine ?? ''}\0${a.symbol ?? ''}`;
      if (seen.has(key)) return;
      seen.add(key);
      if (r.anchors.length >= MAX_ANCHORS_PER_NOTE) {
        dropped++;
        return;
      }
      r.anchors.push(a);
      r.texts.push(text);
    };
    for (const c of candidates) {
      const ref = c.ref;
      if (ref.kind === 'path') {
        const t = ctx.tracked.get(ref.path);
        const kind = ref.startLine ? 'lines' : 'path';
        const lines = ref.startLine ? { startLine: ref.startLine, endLine: ref.endLine } : {};
        if (t) {
          if (!t.mode.startsWith('100') || isBinaryOrOdd(ctx.top, ref.path, binary)) continue;
          add({ kind, path: ref.path, ...lines, source: c.source, noteLine: c.noteLine }, c.text);
        } else if (ref.path.includes('/') && !existsLoosely(ctx.top, ref.path)) {
          add({ kind, path: ref.path, ...lines, source: c.source, noteLine: c.noteLine, absent: true }, c.text);
        }
        continue;
      }
      const { def, candidates: where } = pickDefinition(located.get(ref.name), ref.container, ref.path);
      if (def) {
        add({ kind: 'symbol', path: def.path, symbol: ref.name, startLine: def.startLine, endLine: def.endLine, source: c.source, noteLine: c.noteLine }, c.text);
        continue;
      }
      // Defined nowhere now: kept as `absent` (a few per note); it counts if the note's base defined it exactly once.
      if (!where.length && absentSymbols < MAX_ABSENT_SYMBOLS) {
        absentSymbols++;
        add({ kind: 'symbol', path: ref.path ?? '', symbol: ref.name, container: ref.container, source: c.source, noteLine: c.noteLine, absent: true }, c.text);
      }
      if (c.source === 'frontmatter') {
        r.warnings.push(where.length
          ? `anchor \`${c.text}\` is ambiguous (defined in ${where.slice(0, 5).join(', ')}${where.length > 5 ? ', …' : ''}): write it as \`path#${ref.name}\``
          : `anchor \`${c.text}\` names no file or definition in the repository`);
      }
    }
    if (dropped || truncated) r.warnings.push(`only the first ${MAX_ANCHORS_PER_NOTE} anchors are checked (the note names more)`);
    out.set(docId, r);
  }
  return out;
}

/** Something is at the path (an untracked or ignored file): not an anchor, but not absent either. */
function existsLoosely(top: string, path: string): boolean {
  try {
    lstatSync(join(top, path));
    return true;
  } catch {
    return false;
  }
}
