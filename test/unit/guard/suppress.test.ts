import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { guardCheck } from '../../../src/core/guard/check';
import { suppressedIds, suppressionComment } from '../../../src/core/guard/suppress';
import { makeRepo } from './helpers';

// #16 item 10: `k0maru-guard-ignore <id>` on a line or the line above silences that rule there, in every entry point.

const MAIN = resolve(__dirname, '..', '..', 'fixtures', 'guard', 'runCli.ts');
const TSX = pathToFileURL(require.resolve('tsx')).href;

const ADR = [
  '---', 'id: ADR-002', 'status: accepted', '---', '# ADR-002: SQL explicit columns', '', '## Invariants', '',
  '- deny: SELECT * FROM | id: SQL-STAR | because: Name the columns.',
  '- deny: `eval(` | id: NO-EVAL | because: eval runs untrusted code.', '',
].join('\n');

const CODE = [
  'export const a = "SELECT * FROM users"; // k0maru-guard-ignore SQL-STAR -- legacy report, removed in Q3',
  '// k0maru-guard-ignore SQL-STAR',
  'export const b = "SELECT * FROM orders";',
  'export const c = "SELECT * FROM items";',
  '// k0maru-guard-ignore NO-EVAL',
  'export const d = "SELECT * FROM other rule named";',
  '/* k0maru-guard-ignore adr-002 */ export const e = "SELECT * FROM by adr id"; eval("1");',
  '// k0maru-guard-ignore',
  'export const f = "SELECT * FROM bare marker";',
  '',
].join('\n');

function repo() {
  const r = makeRepo({ '.k0maru/wiki/02_Architecture/adr-002.md': ADR, '.gitignore': '.k0maru/index.db*\n', 'README.md': 'x\n' });
  r.commit('init');
  r.write('src/q.ts', CODE);
  r.write('tools/q.py', 'a = "SELECT * FROM t"  # k0maru-guard-ignore SQL-STAR\nb = "SELECT * FROM t"\n');
  r.git('add', '-A');
  return r;
}

const brief = (vs: { ruleId: string; path: string; line: number }[]) => vs.map((v) => `${v.path}:${v.line} ${v.ruleId}`);
const EXPECTED = ['src/q.ts:4 SQL-STAR', 'src/q.ts:6 SQL-STAR', 'src/q.ts:9 SQL-STAR', 'tools/q.py:2 SQL-STAR'];

test('the marker silences the named rule (or ADR) on its line and the next; other rules, lines and bare markers still count', async () => {
  const r = repo();
  try {
    const res = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(brief(res.violations), EXPECTED);
    // Files mode (the editor's untracked-file source and `k0maru guard FILE`) reads the same lines.
    const files = await guardCheck({ cwd: r.root, files: ['src/q.ts'], cache: null });
    assert.deepEqual(brief(files.violations), EXPECTED.filter((e) => e.startsWith('src/')));
  } finally {
    r.dispose();
  }
});

test('the CLI and the pre-commit hook honour the marker (the real CLI, a real staged diff)', () => {
  const r = repo();
  try {
    const out = spawnSync(process.execPath, ['--import', TSX, MAIN, 'guard', '--staged', '--json'], { cwd: r.root, encoding: 'utf8' });
    assert.equal(out.status, 1, out.stderr);
    assert.deepEqual(brief(JSON.parse(out.stdout).violations), EXPECTED);
    const hook = spawnSync(process.execPath, ['--import', TSX, MAIN, 'hook', 'pre-commit'], { cwd: r.root, encoding: 'utf8' });
    assert.notEqual(hook.status, 0);
    const text = hook.stdout + hook.stderr;
    assert.ok(!text.includes('src/q.ts:3') && !text.includes('src/q.ts:1:') && text.includes('src/q.ts:4'), text);
  } finally {
    r.dispose();
  }
});

test('suppressedIds reads the id list up to a reason or a comment closer', () => {
  assert.deepEqual(suppressedIds('x // k0maru-guard-ignore A-1, b.2 -- because'), ['a-1', 'b.2']);
  assert.deepEqual(suppressedIds('<!-- k0maru-guard-ignore ADR-7 -->'), ['adr-7']);
  assert.deepEqual(suppressedIds('/* K0MARU-GUARD-IGNORE: X */'), ['x']);
  assert.deepEqual(suppressedIds('// k0maru-guard-ignore'), []);
  assert.deepEqual(suppressedIds('plain line'), []);
  assert.equal(suppressionComment('typescript', 'R'), '// k0maru-guard-ignore R');
  assert.equal(suppressionComment('python', 'R'), '# k0maru-guard-ignore R');
  assert.equal(suppressionComment('sql', 'R'), '-- k0maru-guard-ignore R');
  assert.equal(suppressionComment('html', 'R'), '<!-- k0maru-guard-ignore R -->');
});

test('the MCP guard_check tool honours the marker, also on a context line of a pasted diff (the file is not on disk)', async () => {
  const { connectStdio, textOf } = await import('../../helpers/mcpClient');
  const r = repo();
  const c = await connectStdio(['--vault', r.root]);
  try {
    const diff = [
      'diff --git a/gone/report.ts b/gone/report.ts', '--- a/gone/report.ts', '+++ b/gone/report.ts', '@@ -1,2 +1,4 @@',
      ' // k0maru-guard-ignore SQL-STAR -- the report view', '+const a = "SELECT * FROM report";', ' const x = 1;', '+const b = "SELECT * FROM other";', '',
    ].join('\n');
    const res = await c.client.callTool({ name: 'guard_check', arguments: { diff } });
    const text = textOf(res);
    assert.match(text, /1 violation/, text);
    assert.match(text, /gone\/report\.ts:4/, text);
    assert.ok(!/gone\/report\.ts:2\b/.test(text), text);
  } finally {
    await c.close();
    r.dispose();
  }
});
