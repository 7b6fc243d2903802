import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { guardCheck } from '../../../src/core/guard/check';
import { explainRules } from '../../../src/core/guard/explain';
import { renderGuardReport } from '../../../src/core/guard/report';
import { loadVaultRules } from '../../../src/core/guard/ruleStore';
import { SCOPE_CACHE_FILE, unmatchedScopes } from '../../../src/core/guard/scopeFiles';
import { runCliCaptured } from '../../helpers/cli';
import { makeRepo, type TempRepo } from './helpers';

const ADR = `---
status: accepted
---
# ADR-12: Legacy payments

## Rules

- deny: \`fetch(\` | in: src/legacy/** | because: use the payments client
- deny: \`eval(\` | in: src/**/*.ts
`;

function repo(): TempRepo {
  const r = makeRepo({
    '.k0maru/wiki/02_Architecture/adr-12-legacy.md': ADR,
    'src/legacy/pay.ts': 'export const pay = 1;\n',
    'src/app.ts': 'export {};\n',
    '.gitignore': '.k0maru/index.db*\n.k0maru/cache/\nbuild/\n',
  });
  r.commit('init');
  return r;
}

async function rulesOf(r: TempRepo) {
  const { adrs } = await loadVaultRules(join(r.root, '.k0maru', 'wiki'), null);
  return adrs.flatMap((a) => a.rules);
}

const cacheDir = (r: TempRepo) => join(r.root, '.k0maru', 'cache');

test('a scope whose code was deleted gets "rule scope matches no files" with the rule, the ADR link and a remediation; it blocks nothing', async () => {
  const r = repo();
  try {
    const before = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(before.diagnostics.filter((d) => d.code === 'rule.scope-matches-nothing'), [], 'the scope matches src/legacy/pay.ts: nothing to say');

    r.git('rm', '-q', 'src/legacy/pay.ts');
    r.commit('drop the legacy payment code');
    r.write('src/app.ts', 'fetch("x");\nexport {};\n');
    r.git('add', '-A');
    const after = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.equal(after.ok, true, 'a diagnostic, never a violation: the commit is not blocked');
    const d = after.diagnostics.filter((x) => x.code === 'rule.scope-matches-nothing');
    assert.equal(d.length, 1, JSON.stringify(after.diagnostics));
    assert.equal(d[0].adrPath, '02_Architecture/adr-12-legacy.md');
    assert.equal(d[0].line, 8);
    assert.match(d[0].message, /^rule scope matches no files: 'src\/legacy\/\*\*'/);
    assert.match(d[0].message, /rule 'deny: fetch\(/);
    assert.match(d[0].message, /\[\[adr-12-legacy\]\]/);
    assert.match(d[0].message, /Remediation: point the scope at where that code lives now/);
    // The report `k0maru guard` prints and guard_check returns as text carries it with its ADR line.
    assert.match(renderGuardReport(after), /- 02_Architecture\/adr-12-legacy\.md:8: rule scope matches no files/);
  } finally {
    r.dispose();
  }
});

test('untracked files git does not ignore count as repository files; ignored ones do not', async () => {
  const r = repo();
  try {
    r.git('rm', '-q', 'src/legacy/pay.ts');
    r.commit('drop');
    const rules = await rulesOf(r);
    assert.equal((await unmatchedScopes(r.root, rules)).diagnostics.length, 1);
    r.write('src/legacy/new.ts', 'export {};\n'); // untracked, not ignored
    assert.deepEqual((await unmatchedScopes(r.root, rules)).diagnostics, []);
    // A scope that only an ignored file would match matches nothing.
    const ignored = rules.slice(0, 1).map((x) => ({ ...x, include: ['build/**'], scopes: undefined }));
    r.write('build/out.js', 'x\n');
    assert.equal((await unmatchedScopes(r.root, ignored)).diagnostics.length, 1);
  } finally {
    r.dispose();
  }
});

test('the cache: same HEAD and index → no git at all; an index change lists again; a cache hit never reports a scope', async () => {
  const r = repo();
  try {
    const rules = await rulesOf(r);
    const first = await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) });
    assert.deepEqual([first.source, first.diagnostics], ['git', []]);
    assert.ok(existsSync(join(cacheDir(r), SCOPE_CACHE_FILE)));
    const second = await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) });
    assert.deepEqual([second.source, second.diagnostics], ['cache', []], 'the hook path starts no git process when nothing changed');
    // `git commit -a` hands its hook another index (GIT_INDEX_FILE=.git/index.lock): that one is the stamp then.
    assert.equal((await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r), env: { GIT_INDEX_FILE: '.git/index.lock' } })).source, 'git');
    // GIT_DIR / GIT_WORK_TREE: a layout the stamp does not read, so no cache at all.
    assert.equal((await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r), env: { GIT_DIR: join(r.root, '.git') } })).source, 'git');

    // Deleting the code changes the index: the next run lists the files and reports the scope.
    r.git('rm', '-q', 'src/legacy/pay.ts');
    const third = await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) });
    assert.equal(third.source, 'git');
    assert.deepEqual(third.diagnostics.map((d) => d.line), [8]);
    // Unmatched scopes are never cached as facts: the next run with the same stamp lists again and says it again.
    const fourth = await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) });
    assert.deepEqual([fourth.source, fourth.diagnostics.length], ['git', 1]);

    // A new commit moves HEAD: a cache written for the old HEAD is not used.
    r.git('reset', '-q', 'HEAD', '--', 'src/legacy/pay.ts');
    r.git('checkout', '-q', '--', 'src/legacy/pay.ts');
    assert.equal((await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) })).source, 'git');
    r.write('src/b.ts', 'export {};\n');
    r.commit('b');
    assert.equal((await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) })).source, 'git');
    assert.equal((await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) })).source, 'cache');
  } finally {
    r.dispose();
  }
});

test('a corrupt or foreign cache file is ignored and rewritten; a scope that matches is never reported', async () => {
  const r = repo();
  try {
    const rules = await rulesOf(r);
    await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) });
    const file = join(cacheDir(r), SCOPE_CACHE_FILE);
    writeFileSync(file, '{not json');
    const res = await unmatchedScopes(r.root, rules, { cacheDir: cacheDir(r) });
    assert.deepEqual([res.source, res.diagnostics], ['git', []]);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).format, 'k0maru-scope-files-1');
  } finally {
    r.dispose();
  }
});

test('k0maru guard --json and --explain-rules carry the diagnostic', async () => {
  const r = repo();
  try {
    r.git('rm', '-q', 'src/legacy/pay.ts');
    r.commit('drop');
    const cli = await runCliCaptured(['guard', '--json'], { cwd: r.root });
    assert.equal(cli.code, 0, cli.err);
    const j = JSON.parse(cli.out) as { ok: boolean; diagnostics: { code: string; message: string; line: number }[] };
    assert.equal(j.ok, true);
    assert.ok(j.diagnostics.some((d) => d.code === 'rule.scope-matches-nothing' && d.line === 8 && d.message.includes('[[adr-12-legacy]]')), cli.out);
    const ex = await explainRules({ cwd: r.root });
    assert.deepEqual(ex.scopeDiagnostics.map((d) => d.line), [8]);
  } finally {
    r.dispose();
  }
});
