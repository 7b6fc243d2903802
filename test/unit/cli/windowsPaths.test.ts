import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';

/**
 * Issue 16 item 19, paths from Windows taken where we take paths, through the built CLI on this (Linux) machine:
 * `--vault` with backslashes or a drive letter, a committed config.json binding `..\notes`, guard `in:` globs and
 * file arguments written with `\`, `[[folder\note]]` links, and CRLF ADRs and sources. The Windows semantics of the
 * normaliser itself are unit-tested with path.win32 in userPath.test.ts.
 */

const ADR = (scope: string, eol = '\n') =>
  ['---', 'status: accepted', '---', '# ADR-1: No eval', '', '## Invariants', '', `- deny: \`eval(\` | in: ${scope} | id: NO-EVAL | because: eval runs untrusted code.`, ''].join(eol);

function workspace(files: Record<string, string>): { dir: string; run(args: string[], cwd?: string, env?: Record<string, string>): { code: number; out: string; err: string }; done(): void } {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'k0-winpaths-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return {
    dir,
    run: (args, cwd = dir, env = {}) => {
      const r = spawnSync(process.execPath, [DIST_CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: dir, ...env }, encoding: 'utf8' });
      return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
    },
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}

test('issue16-item19: --vault with backslashes works, a drive-letter path off Windows is a coded usage error', () => {
  const w = workspace({ 'work/app/.k0maru/wiki/hello.md': '# Hello\n\nA note about payments.\n' });
  try {
    const r = w.run(['recall', 'payments', '--mode', 'bm25', '--vault', '.\\work\\app']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /hello\.md/);
    const viaEnv = w.run(['recall', 'payments', '--mode', 'bm25'], w.dir, { K0MARU_VAULT: 'work\\app' });
    assert.equal(viaEnv.code, 0, viaEnv.err);
    assert.match(viaEnv.out, /hello\.md/);
    const mcp = w.run(['mcp', '--vault', 'C:\\x'], w.dir);
    assert.equal(mcp.code, 2, 'the MCP server refuses a drive-letter vault off Windows before it starts');
    const drive = w.run(['recall', 'payments', '--vault', 'C:\\Users\\dev\\app']);
    assert.equal(drive.code, 2, drive.err);
    assert.match(drive.err, /is a Windows path.*\[INVALID_ARGUMENT\]/);
  } finally {
    w.done();
  }
});

test('issue16-item19: a config.json committed on Windows binding "..\\\\notes" finds the vault', () => {
  const w = workspace({ 'app/.k0maru/config.json': JSON.stringify({ vault: '..\\notes' }), 'notes/idea.md': '# Idea\n\nLedger reconciliation runs nightly.\n' });
  try {
    const r = w.run(['recall', 'reconciliation', '--mode', 'bm25'], join(w.dir, 'app'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /idea\.md/);
  } finally {
    w.done();
  }
});

test('issue16-item19: guard in: globs and FILE arguments written with backslashes, CRLF ADRs and sources', () => {
  for (const eol of ['\n', '\r\n']) {
    const w = workspace({ '.k0maru/wiki/02_Architecture/adr-001.md': ADR('src\\**\\*.ts', eol), 'src/deep/bad.ts': ['export const x = 1;', 'eval(input);', ''].join(eol) });
    try {
      execFileSync('git', ['init', '-q'], { cwd: w.dir });
      const r = w.run(['guard', 'src\\deep\\bad.ts']);
      assert.equal(r.code, 1, `eol ${JSON.stringify(eol)}: ${r.out}${r.err}`);
      assert.match(r.out + r.err, /\[NO-EVAL\] src\/deep\/bad\.ts:2/);
      assert.doesNotMatch(r.out + r.err, /\r/, 'no carriage return leaks into the report');
      // A diff saved on Windows (CRLF line ends) reads the same.
      const diff = ['diff --git a/src/deep/bad.ts b/src/deep/bad.ts', 'new file mode 100644', '--- /dev/null', '+++ b/src/deep/bad.ts', '@@ -0,0 +1,2 @@', '+export const x = 1;', '+eval(input);', ''].join(eol);
      writeFileSync(join(w.dir, 'win.diff'), diff);
      const d = w.run(['guard', '--diff-file', 'win.diff']);
      assert.equal(d.code, 1, d.out + d.err);
      assert.match(d.out, /\[NO-EVAL\] src\/deep\/bad\.ts:2/);
    } finally {
      w.done();
    }
  }
});

test('issue16-item19: [[folder\\note]] links written on Windows resolve', () => {
  const w = workspace({ '.k0maru/wiki/cards/target-note.md': '# Target note\n\nThe reconciliation target.\n', '.k0maru/wiki/index.md': '# Index\n\nSee [[cards\\target-note]] for details.\n' });
  try {
    const r = w.run(['recall', 'reconciliation target', '--mode', 'bm25', '--json']);
    assert.equal(r.code, 0, r.err);
    const hit = (JSON.parse(r.out).hits as { path: string; linksIn: number }[]).find((h) => h.path === 'cards/target-note.md');
    assert.equal(hit?.linksIn, 1, r.out);
  } finally {
    w.done();
  }
});
