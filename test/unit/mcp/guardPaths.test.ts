import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectStdio, textOf } from '../../helpers/mcpClient';
import { makeRepo, type TempRepo } from '../guard/helpers';
import { dirty, makeHostileRepo, type HostileRepo } from '../../helpers/hostileRepo';

// Issue 13 defect 7 through the real MCP server: guard_check refuses paths and repositories outside the project
// with a coded error, and runs no program a repository's config names.

let tmp: string;
let project: TempRepo;
let outside: HostileRepo;
let nested: HostileRepo;

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'k0-mcp-guard-'));
  project = makeRepo({ '.k0maru/wiki/adr-001.md': '---\nstatus: accepted\n---\n# ADR-1: no eval\n\n## Invariants\n\n- deny: `eval(` | id: NO-EVAL\n- deny: root:x | anywhere | id: PASSWD\n', 'README.md': '# demo\n' });
  project.write('.gitignore', '.k0maru/index.db*\nnested/\n');
  project.commit('base');
  outside = makeHostileRepo(join(tmp, 'outside'), join(tmp, 'marker-outside'));
  dirty(outside);
  nested = makeHostileRepo(join(project.root, 'nested'), join(tmp, 'marker-nested'));
  dirty(nested);
  mkdirSync(join(project.root, 'src'), { recursive: true });
  symlinkSync('/etc/passwd', join(project.root, 'src', 'passwd.ts'));
  writeFileSync(join(project.root, 'src', 'ok.ts'), 'eval(code);\n');
});
after(() => {
  project.dispose();
  rmSync(tmp, { recursive: true, force: true });
});

test('guard_check: files and repo_path outside the project are PATH_OUTSIDE_VAULT; a hostile nested repository runs nothing', { timeout: 180_000 }, async () => {
  const c = await connectStdio(['--vault', project.root]);
  try {
    const call = async (args: Record<string, unknown>) => {
      const r = await c.client.callTool({ name: 'guard_check', arguments: args });
      return { isError: !!r.isError, text: textOf(r) };
    };
    for (const args of [
      { files: ['/etc/passwd'] },
      { files: ['../../../../../../etc/passwd'] },
      { files: ['src/passwd.ts'] }, // a link inside the project that leads out
      { repo_path: '/etc/passwd' },
      { repo_path: '/etc' },
      { repo_path: '..' },
      { repo_path: outside.root },
      { repo_path: outside.root, files: ['a.ts'] },
    ]) {
      const r = await call(args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(r.text, /^PATH_OUTSIDE_VAULT: /, `${JSON.stringify(args)} → ${r.text}`);
      assert.doesNotMatch(r.text, /root:x|ENOTDIR|INTERNAL/);
    }
    const notFolder = await call({ repo_path: 'README.md' });
    assert.match(notFolder.text, /^INVALID_ARGUMENT: .*not a folder/);
    assert.match((await call({ files: ['.git/config'] })).text, /^INVALID_ARGUMENT: .*\.git folder/);
    assert.match((await call({ branch: 'main\u0000' })).text, /^INVALID_ARGUMENT: .*NUL/);
    assert.match((await call({ branch: '--output=/tmp/x' })).text, /^INVALID_ARGUMENT: /);

    // The worktree source lists the untracked link; it is skipped, never read.
    const wt = await call({});
    assert.doesNotMatch(wt.text, /PASSWD|passwd\.ts/, wt.text);
    assert.match(wt.text, /NO-EVAL/);

    const inside = await call({ repo_path: 'nested' });
    assert.equal(inside.isError, false, inside.text);
    assert.match(inside.text, /NO-EVAL/);
    const staged = await call({ repo_path: 'nested', files: ['nested/a.ts'] });
    assert.equal(staged.isError, false, staged.text);
    assert.equal(outside.ran(), '', `outside repository's programs ran: ${outside.ran()}`);
    assert.equal(nested.ran(), '', `nested repository's programs ran: ${nested.ran()}`);
  } finally {
    await c.close();
  }
});
