import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit, runGitSync } from '../../../src/core/git/run';
import { branchChanges, fileChanges, repoRoot, stagedChanges, worktreeChanges } from '../../../src/core/guard/diffSource';
import { guardCheck } from '../../../src/core/guard/check';
import { installHooks } from '../../../src/core/guard/hookInstaller';
import { dirty, makeHostileRepo } from '../../helpers/hostileRepo';
import { guardSourceForFile } from '../../../src/extension/guardSource';

// Issue 13 defect 7: a repository's own config made our git calls execute its programs. Every git call of the
// product goes through src/core/git/run.ts; these run each of them against a hostile repository.

const ADR = '---\nstatus: accepted\n---\n# ADR-1: no eval\n\n## Invariants\n\n- deny: `eval(` | id: NO-EVAL\n';

test('no git call of the guard runs fsmonitor, filters, textconv, external diff, pager or hooks configured by the repository', { timeout: 120_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k0git-'));
  try {
    const r = makeHostileRepo(join(tmp, 'repo'), join(tmp, 'marker'));
    dirty(r);
    assert.equal(r.ran(), '', 'setting up ran nothing');
    execFileSync('mkdir', ['-p', join(r.root, '.k0maru', 'wiki')]);
    writeFileSync(join(r.root, '.k0maru', 'wiki', 'adr-001.md'), ADR);

    assert.equal(await repoRoot(r.root), r.root);
    const staged = await stagedChanges(r.root);
    assert.deepEqual(staged.map((f) => f.path), ['b.ts']);
    const wt = await worktreeChanges(r.root);
    assert.deepEqual(wt.map((f) => f.path).sort(), ['.k0maru/wiki/adr-001.md', 'a.ts', 'b.ts', 'c.ts']);
    assert.deepEqual(wt.find((f) => f.path === 'a.ts')!.added.map((a) => a.text), ['export const a = 2;', 'eval(x);'], 'the raw text, no textconv');
    await branchChanges(r.root, 'main');
    const one = await fileChanges(r.root, 'a.ts');
    assert.match(one.diff, /^\+eval\(x\);$/m);
    assert.equal((await runGit(r.root, ['rev-parse', '--git-dir'])).trim(), '.git');
    runGitSync(r.root, ['status', '--porcelain'], { worktree: true });
    for (const source of [{ staged: true }, {}, { branch: 'main' }, { files: ['a.ts'] }]) {
      const res = await guardCheck({ cwd: r.root, cache: null, env: {}, ...source });
      assert.ok(res.violations.some((v) => v.ruleId === 'NO-EVAL'), JSON.stringify(source));
    }
    assert.equal(r.ran(), '', `repository-configured programs ran: ${r.ran()}`);

    // The hook installer must still see the repository's hooks folder (it is the one call that keeps core.hooksPath).
    const report = installHooks(r.root, { command: 'true', claude: false });
    assert.equal(report.target, 'git-hooks');
    assert.ok(report.changed.some((p) => p.includes('evil-hooks/pre-commit')), report.changed.join(','));
    assert.equal(r.ran(), '');

    // The trap is real: plain git runs the repository's programs on the same repository.
    execFileSync('git', ['diff', 'HEAD'], { cwd: r.root, stdio: 'ignore' });
    assert.match(r.ran(), /fsmonitor/);
    assert.match(r.ran(), /diff-command|diff-external|textconv|clean/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a file or a missing folder as the repository is a coded error, not spawn ENOTDIR', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k0git-'));
  try {
    writeFileSync(join(tmp, 'f.txt'), 'x');
    for (const cwd of [join(tmp, 'f.txt'), join(tmp, 'missing'), '/etc/passwd']) {
      await assert.rejects(runGit(cwd, ['rev-parse', '--show-toplevel']), (e: Error & { code?: string }) => e.code === 'NOT_A_GIT_REPO' && !/ENOTDIR|spawn/.test(e.message));
      assert.throws(() => runGitSync(cwd, ['rev-parse', '--git-dir']), (e: Error & { code?: string }) => e.code === 'NOT_A_GIT_REPO');
    }
    await assert.rejects(runGit(tmp, ['rev-parse', '--show-toplevel']), (e: Error & { code?: string }) => e.code === 'NOT_A_GIT_REPO');
    await assert.rejects(guardCheck({ cwd: tmp, repoPath: 'f.txt', staged: true, env: {} }), (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('every git process the product starts goes through src/core/git/run.ts', async () => {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const src = join(__dirname, '..', '..', '..', 'src');
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name) && !p.endsWith(join('core', 'git', 'run.ts'))) {
        const text = readFileSync(p, 'utf8');
        if (/\b(execFile|execFileSync|spawn|spawnSync|exec|execSync)\(\s*['"`]git['"`]/.test(text)) offenders.push(p.slice(src.length + 1));
      }
    }
  };
  walk(src);
  assert.deepEqual(offenders, []);
});

test("the editor's on-save source runs no repository-configured program; outside a repository it reads only workspace files", { timeout: 120_000 }, async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'k0git-'));
  try {
    const r = makeHostileRepo(join(tmp, 'repo'), join(tmp, 'marker'));
    dirty(r);
    const edited = await guardSourceForFile(r.root, join(r.root, 'a.ts'));
    assert.equal(edited.kind, 'diff');
    assert.match(edited.kind === 'diff' ? edited.diff : '', /^\+eval\(x\);$/m);
    const untracked = await guardSourceForFile(r.root, join(r.root, 'c.ts'));
    assert.deepEqual(untracked, { kind: 'files', root: r.root, files: [join(r.root, 'c.ts')] });
    assert.equal(r.ran(), '', `repository-configured programs ran: ${r.ran()}`);
    const ws = join(tmp, 'plain');
    execFileSync('mkdir', ['-p', ws]);
    writeFileSync(join(tmp, 'elsewhere.ts'), 'eval(1)\n');
    assert.equal((await guardSourceForFile(ws, join(tmp, 'elsewhere.ts'))).kind, 'none', 'a file outside the workspace and outside any repository');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
