import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A real git repository in a temp dir with a `.k0maru/wiki` vault. */
export interface TempRepo {
  root: string;
  write(rel: string, text: string): void;
  git(...args: string[]): string;
  commit(message: string): void;
  dispose(): void;
}

export function makeRepo(files: Record<string, string> = {}): TempRepo {
  const root = mkdtempSync(join(tmpdir(), 'k0guard-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 't');
  git('config', 'user.email', 't@e');
  git('config', 'commit.gpgsign', 'false');
  const write = (rel: string, text: string) => {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  };
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  return {
    root,
    write,
    git,
    commit(message) {
      git('add', '-A');
      git('commit', '-q', '--no-verify', '-m', message);
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

export const SQL_ADR = `---
id: ADR-008
status: accepted
---
# ADR-008: SQL best practices

## Invariants

- deny: SELECT * FROM | id: ADR-008-QuerySafety | because: Specify explicit columns to prevent schema leaks and unindexed full scans.
- deny: /\\bfetch\\(/ | in: src/** | except: **/*.test.ts | because: Use the http client wrapper.
- warn: \`console.log(\` | lang: ts, js
- require: \`// SAFETY:\` | when: \`unsafe {\` | window: above 2 | lang: rust | id: RUST-SAFETY
- require: \`timeout=\` | when: \`requests.get(\` | lang: python | id: PY-TIMEOUT

\`\`\`md
- deny: this is an example in a fence
\`\`\`
`;
