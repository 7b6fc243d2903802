import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathsForProject, type VaultPaths } from '../../../src/core/vault/paths';

export const LAYOUTS = join(__dirname, '..', '..', 'fixtures', 'layouts');

/** A fresh project in a temp dir: `.k0maru/wiki/` holding a copy of a fixture layout (or nothing). */
export function tempProject(layout?: string): VaultPaths {
  const root = mkdtempSync(join(tmpdir(), 'k0flush-'));
  const wiki = join(root, '.k0maru', 'wiki');
  mkdirSync(wiki, { recursive: true });
  if (layout) cpSync(join(LAYOUTS, layout), wiki, { recursive: true });
  return pathsForProject(root);
}

/** Every file under a folder (relative path → bytes), to prove "nothing else changed". */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(join(dir, r)).isDirectory()) walk(r);
      else out.set(r, readFileSync(join(dir, r), 'latin1'));
    }
  };
  walk('');
  return out;
}

export function read(paths: VaultPaths, rel: string): string {
  return readFileSync(join(paths.notesRoot, rel), 'utf8');
}
