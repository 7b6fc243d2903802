import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { guardCheck } from '../../../src/core/guard/check';
import { renderGuardReport } from '../../../src/core/guard/report';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { isK0Error } from '../../../src/core/errors';
import { makeRepo } from './helpers';

const ADR = `---
id: ADR-020
status: accepted
---
# ADR-020: Dates and lodash

## Context

We considered \`dayjs\`.

## Decision

Do not import \`lodash\` in \`packages/web\`; use the native array methods.
`;

function repo(adr = ADR) {
  const r = makeRepo({ '.k0maru/wiki/02_Architecture/adr-020.md': adr, 'packages/web/a.ts': 'export {};\n', 'packages/api/a.ts': 'export {};\n' });
  r.commit('base');
  r.write('packages/web/a.ts', "import _ from 'lodash';\n// lodash is gone\nconst s = \"import x from 'lodash'\";\nimport dayjs from 'dayjs';\n");
  r.write('packages/api/a.ts', "import _ from 'lodash';\n");
  r.git('add', '-A');
  return r;
}

test('a real repository: the inferred rule fires in its folder only, in code only, advisory, with the sentence in the report', async () => {
  const r = repo();
  try {
    const res = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(res.violations.map((v) => [v.path, v.line, v.kind, v.severity, v.inferred, v.adrLine]), [['packages/web/a.ts', 1, 'deny', 'warning', true, 13]]);
    assert.equal(res.ok, true, 'advisory by default');
    const text = renderGuardReport(res);
    assert.match(text, /Inferred from 02_Architecture\/adr-020\.md:13: "Do not import `lodash` in `packages\/web`; use the native array methods\."/);
    assert.match(text, /Remediation: Use the native array methods/);
    const strict = await guardCheck({ cwd: r.root, staged: true, cache: null, strict: true });
    assert.equal(strict.ok, false, '--strict blocks on advisory findings, inferred ones included');
  } finally {
    r.dispose();
  }
});

test('vault setting guard.inferred: block blocks, off turns inferred rules off; an invalid value is a coded usage error', async () => {
  const r = repo();
  try {
    r.write('.k0maru/config.json', JSON.stringify({ guard: { inferred: 'block' } }));
    const block = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(block.violations.map((v) => v.severity), ['error']);
    assert.equal(block.ok, false);
    r.write('.k0maru/config.json', JSON.stringify({ guard: { inferred: 'off' } }));
    const off = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(off.violations, []);
    assert.equal(off.stats.rules, 0);
    r.write('.k0maru/config.json', JSON.stringify({ guard: { inferred: 'loud' } }));
    await assert.rejects(guardCheck({ cwd: r.root, staged: true, cache: null }), (e: unknown) => isK0Error(e) && e.code === 'INVALID_ARGUMENT' && /guard\.inferred/.test(e.message));
  } finally {
    r.dispose();
  }
});

test('once written explicitly (same pattern and scope, another ADR), the inferred duplicate does not fire beside it', async () => {
  const r = repo();
  try {
    const inferred = parseAdrRules(ADR, 'x.md').rules[0];
    r.write('.k0maru/wiki/02_Architecture/adr-021.md', `# ADR-021\n\n## Invariants\n\n- deny: /${inferred.pattern.source}/ | in: packages/web/** | no-strings | id: NO-LODASH\n`);
    const res = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.deepEqual(res.violations.map((v) => [v.ruleId, v.inferred, v.severity]), [['NO-LODASH', false, 'error']]);
  } finally {
    r.dispose();
  }
});

const CORPUS = join(__dirname, '..', '..', '..', '..', 'shared', 'corpus', 'adr-vault');

test('inference over the whole reference ADR corpus: no crash, and how many ADRs yield inferred rules', (t) => {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.md')) files.push(p);
    }
  };
  walk(CORPUS);
  assert.ok(files.length >= 380, `expected the 380-ADR corpus at ${CORPUS}, found ${files.length}`);
  let adrs = 0;
  let rules = 0;
  let ambiguous = 0;
  for (const f of files) {
    const adr = parseAdrRules(readFileSync(f, 'utf8'), relative(CORPUS, f));
    const mine = adr.rules.filter((x) => x.origin === 'inferred');
    if (mine.length) adrs++;
    rules += mine.length;
    ambiguous += adr.diagnostics.filter((d) => d.inferred).length;
    for (const rule of mine) assert.ok(rule.sentence && rule.line > 0);
  }
  t.diagnostic(`corpus: ${files.length} ADRs, ${adrs} yield inferred rules (${rules} rules), ${ambiguous} ambiguity diagnostics`);
  console.log(`corpus: ${files.length} ADRs, ${adrs} yield inferred rules (${rules} rules), ${ambiguous} ambiguity diagnostics`);
});
