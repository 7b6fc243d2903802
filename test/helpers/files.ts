import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every file under `root`, relative with '/' separators: used to prove what a use case wrote, and where. */
export function listFiles(root: string, rel = ''): string[] {
  if (!existsSync(join(root, rel))) return [];
  const out: string[] = [];
  for (const n of readdirSync(join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${n.name}` : n.name;
    if (n.isDirectory()) out.push(...listFiles(root, r));
    else out.push(r);
  }
  return out;
}

/** A throw-away project root with the paths the offload/GC engines take. */
export function tempRefsProject(prefix: string): { projectRoot: string; refsDir: string } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return { projectRoot: root, refsDir: join(root, '.k0maru', 'refs') };
}
