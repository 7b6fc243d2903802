import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openProject, type Project } from '../../../src/core/project';

/** A real git repository with a `.k0maru/wiki` vault: code and notes committed together, as users keep them. */
export interface StaleRepo {
  root: string;
  write(rel: string, content: string): void;
  note(rel: string, content: string): void;
  remove(rel: string): void;
  git(...args: string[]): string;
  commit(message: string): string;
  open(): Project;
  cleanup(): void;
}

const ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e', GIT_CONFIG_NOSYSTEM: '1' };

/** `fixedDates`: every commit dated the same, so two repositories built by the same steps have the same hashes. */
export function staleRepo(opts: { git?: boolean; fixedDates?: boolean } = {}): StaleRepo {
  const root = mkdtempSync(join(tmpdir(), 'k0-stale-'));
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  writeFileSync(join(root, '.gitignore'), '.k0maru/index.db*\n.k0maru/cache/\n');
  const dates = opts.fixedDates ? { GIT_AUTHOR_DATE: '2026-11-20T10:00:00Z', GIT_COMMITTER_DATE: '2026-11-20T10:00:00Z' } : {};
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...ENV, ...dates } });
  if (opts.git !== false) {
    git('init', '-q', '-b', 'main');
    git('config', 'commit.gpgsign', 'false');
  }
  const write = (rel: string, content: string) => {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  };
  const projects: Project[] = [];
  return {
    root,
    write,
    note: (rel, content) => write(join('.k0maru', 'wiki', rel), content),
    remove: (rel) => unlinkSync(join(root, rel)),
    git,
    commit: (message) => {
      git('add', '-A');
      git('commit', '-q', '--no-verify', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD').trim();
    },
    open: () => {
      const p = openProject({ cwd: root, env: {} });
      projects.push(p);
      return p;
    },
    cleanup: () => {
      for (const p of projects) p.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
