import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openProject } from '../../../src/core/project';
import { isAdrNote, listAdrNotes } from '../../../src/core/index/adrNotes';
import { getProjectLoadout } from '../../../src/core/loadout/loadout';
import { ruleCounts } from '../../../src/core/guard/ruleCounts';
import { loadVaultRules } from '../../../src/core/guard/ruleStore';
import { tempVault } from '../../helpers/tempVault';

// #16 item 8 and 14: which notes are ADRs, and how many rules / ADRs are active — one answer in core.

const note = (fm: string, title: string, body = 'Text.') => `---\n${fm}\n---\n# ${title}\n\n${body}\n`;

test('isAdrNote: a known category wins over the folder; no category (or an unknown one) → the folder decides', () => {
  assert.equal(isAdrNote('02_Architecture/ADR-001.md', undefined), true);
  assert.equal(isAdrNote('02_Architecture/ADR-001.md', 'decision'), true);
  assert.equal(isAdrNote('02_Architecture/sync.md', 'log'), false);
  assert.equal(isAdrNote('02_Architecture/glossary.md', 'concept'), false);
  assert.equal(isAdrNote('02_Architecture/old.md', 'reference'), true, 'an unknown category does not override the folder (as in the tiers)');
  assert.equal(isAdrNote('notes/choice.md', 'ADR'), true);
  assert.equal(isAdrNote('notes/choice.md', undefined), false);
  assert.equal(isAdrNote('docs/adr/0001-x.md', null), true);
  assert.equal(isAdrNote('02_Architecture.md', undefined), false, 'a file named like the folder is not in it');
  // An ADR tool's template sits in the ADR folder but is a form, whatever its frontmatter says.
  assert.equal(isAdrNote('docs/adr/template.md', undefined), false);
  assert.equal(isAdrNote('docs/decisions/adr-template.md', 'decision'), false);
  assert.equal(isAdrNote('docs/adr/0000-TEMPLATE.md', null), false);
  assert.equal(isAdrNote('docs/adr/0010-django-templates.md', null), true, 'a decision about templates is a decision');
});

test('listAdrNotes and the loadout agree: logs and cards filed under Architecture are not decisions', async () => {
  const v = tempVault({
    '02_Architecture/ADR-001-lock.md': note('category: decision\ndate: 2026-10-01', 'ADR-001: Lock charges', '## Invariants\n\n- deny: `charge(` | id: R1 | because: Lock first.\n- warn: `retry(` | id: R2'),
    '02_Architecture/ADR-002-old.md': note('status: superseded\ndate: 2026-09-01', 'ADR-002: Old lock', '## Invariants\n\n- deny: `old(` | id: R3'),
    '02_Architecture/ADR-003-queues.md': note('date: 2026-10-05', 'ADR-003: Queues'),
    '02_Architecture/sync-2026-10-03.md': note('category: log\ndate: 2026-10-03', 'Architecture sync'),
    '02_Architecture/glossary.md': note('category: concept', 'Payment glossary'),
  });
  const p = openProject({ vault: v.root });
  try {
    await p.scan();
    const adrs = listAdrNotes(p.index);
    assert.deepEqual(adrs.map((a) => a.path), ['02_Architecture/ADR-003-queues.md', '02_Architecture/ADR-001-lock.md', '02_Architecture/ADR-002-old.md']);
    assert.deepEqual(adrs.map((a) => a.superseded), [false, false, true]);
    const l = await getProjectLoadout(p, { budget: 2000 });
    assert.ok(l.markdown.includes('[[ADR-003-queues]]'), l.markdown);
    assert.ok(!l.markdown.includes('[[sync-2026-10-03]]:'), l.markdown);
    assert.ok(!l.markdown.includes('[[glossary]]'), l.markdown);
    // Rules: 2 active in 1 ADR; the superseded ADR's rule does not count as active.
    const rules = await loadVaultRules(p.paths);
    assert.deepEqual(ruleCounts(rules.adrs), { rules: 2, adrs: 1, inactiveAdrs: 1 });
  } finally {
    p.close();
    v.cleanup();
  }
});

test('the CLI says the same count as the editor log: active rules in ADRs that hold them, superseded ones apart', async () => {
  const { spawnSync } = await import('node:child_process');
  const { resolve } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const MAIN = resolve(__dirname, '..', '..', 'fixtures', 'guard', 'runCli.ts');
  const TSX = pathToFileURL(require.resolve('tsx')).href;
  const v = tempVault({
    '02_Architecture/ADR-001-lock.md': note('category: decision', 'ADR-001: Lock charges', '## Invariants\n\n- deny: `charge(` | id: R1\n- warn: `retry(` | id: R2'),
    '02_Architecture/ADR-002-old.md': note('status: superseded', 'ADR-002: Old lock', '## Invariants\n\n- deny: `old(` | id: R3'),
    '02_Architecture/ADR-003-empty.md': note('category: decision', 'ADR-003: Queues', '## Invariants\n\nNone yet.'),
  });
  try {
    const out = spawnSync(process.execPath, ['--import', TSX, MAIN, 'guard', '--explain-rules'], { cwd: v.root, encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const { adrs } = await loadVaultRules(v.notes);
    const n = ruleCounts(adrs);
    assert.deepEqual(n, { rules: 2, adrs: 1, inactiveAdrs: 1 });
    assert.ok(out.stdout.includes(`${n.rules} active rule(s) in ${n.adrs} ADR(s), ${n.inactiveAdrs} superseded or retired ADR(s)`), out.stdout.split('\n')[0]);
  } finally {
    v.cleanup();
  }
});
