import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempVault {
  root: string;
  notes: string;
  write(rel: string, content: string | Buffer): string;
  cleanup(): void;
}

/** A throw-away project with `.k0maru/wiki/` holding the given notes (paths relative to the wiki). */
export function tempVault(files: Record<string, string | Buffer> = {}): TempVault {
  const root = mkdtempSync(join(tmpdir(), 'k0-vault-'));
  const notes = join(root, '.k0maru', 'wiki');
  mkdirSync(notes, { recursive: true });
  const write = (rel: string, content: string | Buffer) => {
    const p = join(notes, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    return p;
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  return { root, notes, write, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
