import type { IndexDb } from './db';

/**
 * Resolves every stored WikiLink target the way Obsidian does: a target with a folder matches the path that
 * ends with it; a bare name matches the file name without extension, case-insensitively; when several files
 * share the name the shortest path wins (then the alphabetically first, to stay deterministic).
 * Unresolved links are kept with `to_doc = NULL` and resolve as soon as the note appears.
 */
export function resolveLinks(idx: IndexDb): void {
  const docs = idx.all('SELECT id, path FROM documents');
  const byName = new Map<string, { id: number; path: string }[]>();
  const byPath = new Map<string, number>();
  for (const d of docs) {
    const path = String(d.path);
    const lower = path.toLowerCase();
    const noExt = lower.replace(/\.md$/, '');
    byPath.set(noExt, Number(d.id));
    byPath.set(lower, Number(d.id));
    const name = noExt.slice(noExt.lastIndexOf('/') + 1);
    const list = byName.get(name) ?? [];
    list.push({ id: Number(d.id), path });
    byName.set(name, list);
  }
  for (const list of byName.values()) list.sort((a, b) => a.path.length - b.path.length || a.path.localeCompare(b.path));

  const resolve = (target: string): number | null => {
    // `[[folder\note]]` written on Windows names folder/note, as Obsidian there reads it.
    const t = target.replace(/\\/g, '/').replace(/^\.?\//, '').replace(/\.md$/, '');
    if (!t) return null;
    const exact = byPath.get(t);
    if (exact !== undefined) return exact;
    if (t.includes('/')) {
      const name = t.slice(t.lastIndexOf('/') + 1);
      const hit = (byName.get(name) ?? []).find((c) => c.path.toLowerCase().replace(/\.md$/, '').endsWith('/' + t) || c.path.toLowerCase().replace(/\.md$/, '') === t);
      return hit ? hit.id : null;
    }
    return byName.get(t)?.[0]?.id ?? null;
  };

  const targets = idx.all('SELECT DISTINCT target FROM links');
  idx.write(() => {
    const upd = idx.prepare('UPDATE links SET to_doc = ? WHERE target = ? AND to_doc IS NOT ?');
    try {
      for (const row of targets) {
        const target = String(row.target);
        const id = resolve(target);
        upd.run([id, target, id]);
      }
    } finally {
      upd.finalize();
    }
  });
}
