import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A git repository whose own configuration names programs git would run for ordinary read-only commands:
 * `core.fsmonitor`, a clean/process filter and a textconv + external diff driver (via .gitattributes),
 * `diff.external`, `core.pager`, and hooks under `core.hooksPath`. Each program appends its role to `marker`.
 * `armed()` proves the trap is real: plain git runs them.
 */
export interface HostileRepo {
  root: string;
  marker: string;
  /** What the programs recorded (empty when nothing ran). */
  ran(): string;
  git(...args: string[]): string;
}

export function makeHostileRepo(root: string, marker: string): HostileRepo {
  mkdirSync(root, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
  git('init', '-q', '-b', 'main');
  git('config', 'commit.gpgsign', 'false');
  writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, '.gitattributes'), '*.ts filter=evil diff=evil\n');
  git('add', '-A');
  git('commit', '-q', '--no-verify', '-m', 'base');
  const script = join(root, '.git', 'evil.sh');
  // Records its role; as a filter it passes its input through, as textconv it prints the file (so git keeps working
  // when the trap springs, and nothing waits on a stdin that never closes).
  writeFileSync(script, `#!/bin/sh\necho "$1" >> '${marker}'\ncase "$1" in clean|smudge) cat ;; textconv) cat "$2" ;; esac\nexit 0\n`);
  chmodSync(script, 0o755);
  const hooks = join(root, '.git', 'evil-hooks');
  mkdirSync(hooks, { recursive: true });
  for (const h of ['post-index-change', 'pre-commit', 'post-checkout', 'reference-transaction']) {
    writeFileSync(join(hooks, h), `#!/bin/sh\necho hook-${h} >> '${marker}'\n`);
    chmodSync(join(hooks, h), 0o755);
  }
  git('config', 'core.fsmonitor', `${script} fsmonitor`);
  git('config', 'filter.evil.clean', `${script} clean`);
  git('config', 'filter.evil.smudge', `${script} smudge`);
  git('config', 'filter.evil.required', 'true');
  git('config', 'diff.evil.textconv', `${script} textconv`);
  git('config', 'diff.evil.command', `${script} diff-command`);
  git('config', 'diff.external', `${script} diff-external`);
  git('config', 'core.pager', `${script} pager`);
  git('config', 'core.hooksPath', hooks);
  return { root, marker, git, ran: () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '') };
}

/** Changes that make every read-only command consult the programs: a tracked edit (stat-dirty), a staged file, an untracked file. */
export function dirty(r: HostileRepo): void {
  writeFileSync(join(r.root, 'a.ts'), 'export const a = 2;\neval(x);\n');
  writeFileSync(join(r.root, 'b.ts'), 'eval(y);\n');
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'filter.evil.clean=', '-c', 'filter.evil.required=false', 'add', 'b.ts'], { cwd: r.root });
  writeFileSync(join(r.root, 'c.ts'), 'eval(z);\n');
}
