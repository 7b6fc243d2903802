import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { guardCheck } from '../../../src/core/guard/check';
import { renderGuardReport } from '../../../src/core/guard/report';
import { makeRepo } from './helpers';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'guard');

function fixtureRepo() {
  const r = makeRepo();
  cpSync(join(FIXTURES, 'vault'), join(r.root, '.k0maru', 'wiki'), { recursive: true });
  r.write('.gitignore', '.k0maru/index.db*\n');
  r.commit('vault');
  cpSync(join(FIXTURES, 'repo'), r.root, { recursive: true });
  r.git('add', '-A');
  return r;
}

const brief = (vs: { ruleId: string; path: string; line: number }[]) => vs.map((v) => `${v.path}:${v.line} ${v.ruleId}`);

test('TS, Python, Go, Rust and SQL fixtures: exactly the expected violations, none in comments or out of scope', async () => {
  const r = fixtureRepo();
  try {
    const res = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(brief(res.violations), [
      'db/schema.sql:2 ADR-008-QuerySafety',
      'src/app.py:10 PY-TIMEOUT',
      'src/app.py:11 ADR-008-QuerySafety',
      'src/db.ts:3 ADR-008-QuerySafety',
      'src/db.ts:6 adr-010-http#1',
      'src/lib.rs:9 RUST-SAFETY',
      'src/main.go:6 GO-PANIC',
    ]);
    assert.equal(res.ok, false);
    assert.equal(res.stats.adrs, 4, 'the superseded ADR and the plain note are not rule sources');
    assert.equal(res.stats.inactiveAdrs, 1);
    const sql = res.violations.find((v) => v.path === 'src/db.ts' && v.line === 3)!;
    assert.equal(sql.context, 'string', 'SQL inside a string literal counts: strings are code for rules by default');
    assert.equal(sql.column, 21);
    const text = renderGuardReport(res);
    assert.match(text, /^❌ Living ADR Guard Failure: 7 violations detected \(<\d+ms\)/);
    assert.ok(text.includes("- [ADR-008-QuerySafety] src/db.ts:3: 'SELECT * FROM' violates invariant 'deny: SELECT * FROM'."));
    assert.ok(text.includes('  Remediation: Specify explicit columns to prevent schema leaks and unindexed full scans.'));
    assert.ok(text.includes('  Reference: [[02_Architecture/adr-008-sql.md]]'));
  } finally {
    r.dispose();
  }
});

test('explicit file list checks whole files; --diff text; worktree includes untracked files', async () => {
  const r = fixtureRepo();
  try {
    const files = await guardCheck({ cwd: r.root, files: ['src/main.go', 'src/db.test.ts'], cache: null });
    assert.deepEqual(brief(files.violations), ['src/main.go:6 GO-PANIC']);
    const diff = 'diff --git a/src/db.rs b/src/db.rs\n+let res = sqlx::query("SELECT * FROM users").fetch_all(&pool).await;';
    const d = await guardCheck({ cwd: r.root, diff, cache: null });
    assert.deepEqual(brief(d.violations), ['src/db.rs:1 ADR-008-QuerySafety']);
    r.git('reset', '-q');
    const wt = await guardCheck({ cwd: r.root, cache: null });
    assert.equal(wt.source, 'worktree');
    assert.equal(wt.violations.length, 7, 'untracked files are whole-file additions');
  } finally {
    r.dispose();
  }
});

test('removed lines and unchanged context never fire; only added lines, with new-file numbers', async () => {
  const r = makeRepo();
  try {
    cpSync(join(FIXTURES, 'vault'), join(r.root, '.k0maru', 'wiki'), { recursive: true });
    r.write('src/legacy.ts', 'const a = db.query("SELECT * FROM a");\nconst b = 1;\nconst c = db.query("SELECT * FROM c");\n');
    r.commit('legacy with existing violations');
    r.write('src/legacy.ts', 'const b = 1;\nconst c = db.query("SELECT * FROM c");\nconst d = 2;\n');
    r.git('add', '-A');
    const res = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(res.violations, []);
    assert.equal(res.ok, true);
    assert.match(renderGuardReport(res), /^✅ Living ADR Guard: no violations — 5 rule\(s\) from 4 ADR\(s\), 1 file\(s\), 1 added line\(s\)/);
  } finally {
    r.dispose();
  }
});

test('warn is advisory unless strict; superseding an ADR (cached in the index) stops its rule', async () => {
  const r = makeRepo();
  const env = { ...process.env, K0MARU_GUARD_CACHE: '1' };
  try {
    const adr = '---\nstatus: accepted\n---\n# ADR-20\n\n## Invariants\n\n- warn: `console.log(` | id: NO-LOG\n- deny: `eval(` | id: NO-EVAL\n';
    r.write('.k0maru/wiki/adr/adr-020.md', adr);
    r.write('.gitignore', '.k0maru/index.db*\n');
    r.commit('adr');
    r.write('src/x.ts', 'console.log(1);\neval(code);\n');
    r.git('add', 'src/x.ts');
    const first = await guardCheck({ cwd: r.root, staged: true, env });
    assert.ok(existsSync(join(r.root, '.k0maru', 'index.db')), 'the rule cache lives in the index database');
    assert.deepEqual(brief(first.violations), ['src/x.ts:1 NO-LOG', 'src/x.ts:2 NO-EVAL']);
    assert.equal(first.violations[0].severity, 'warning');
    assert.equal(first.ok, false);
    r.write('src/x.ts', 'console.log(1);\n');
    r.git('add', 'src/x.ts');
    const advisory = await guardCheck({ cwd: r.root, staged: true, env });
    assert.equal(advisory.ok, true, 'a warning alone does not block');
    assert.match(renderGuardReport(advisory), /advisory warning/);
    assert.equal((await guardCheck({ cwd: r.root, staged: true, strict: true, env })).ok, false, 'strict turns warnings into failures');

    r.write('src/x.ts', 'eval(code);\n');
    r.git('add', 'src/x.ts');
    assert.equal((await guardCheck({ cwd: r.root, staged: true, env })).ok, false);
    r.write('.k0maru/wiki/adr/adr-020.md', adr.replace('status: accepted', 'status: superseded'));
    const after = await guardCheck({ cwd: r.root, staged: true, env });
    assert.equal(after.ok, true, 'a superseded ADR never applies');
    assert.equal(after.stats.inactiveAdrs, 1);
    const cached = await guardCheck({ cwd: r.root, staged: true, env });
    assert.equal(cached.ok, true);
    // The default one-shot path (no SQLite, in-process memo) agrees.
    assert.equal((await guardCheck({ cwd: r.root, staged: true })).ok, true);
    r.write('.k0maru/wiki/adr/adr-020.md', adr);
    assert.equal((await guardCheck({ cwd: r.root, staged: true })).ok, false, 'memo notices the status flip back');
  } finally {
    r.dispose();
  }
});

test('no vault: nothing to enforce; not a git repo: a typed error', async () => {
  const r = makeRepo();
  try {
    rmSync(join(r.root, '.k0maru'), { recursive: true });
    r.write('a.ts', 'eval(x)\n');
    r.git('add', '-A');
    const res = await guardCheck({ cwd: r.root, staged: true, env: {} });
    assert.equal(res.ok, true);
    assert.equal(res.stats.rules, 0);
  } finally {
    r.dispose();
  }
  await assert.rejects(guardCheck({ cwd: '/', staged: true, env: {} }), (e: Error & { code?: string }) => e.code === 'NOT_A_GIT_REPO');
});
