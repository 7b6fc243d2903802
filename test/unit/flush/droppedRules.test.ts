import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decisionTemplate, describeDropped, droppedRules, flushNote } from '../../../src/core/flush';
import { spawnSync } from 'node:child_process';
import { ensureBuilt, DIST_CLI } from '../../helpers/build';
import { locateVault } from '../../../src/core/vault/paths';
import { loadVaultRules } from '../../../src/core/guard/ruleStore';
import { tempVault } from '../../helpers/tempVault';

// #16 item 11: superseding an ADR with a decision that lacks its rules lifts them; the Flush wizard says which.

const OLD = `---
title: Lock charges
status: accepted
category: decision
---
# ADR-001: Lock charges

## Invariants

- deny: \`charge(\` | id: LOCK | because: Charge through chargeWithLock().
- warn: \`setTimeout(\` | in: src/** | id: NO-TIMER
- deny: /eval\\(/
`;

test('droppedRules lists every rule of the superseded ADRs the new decision does not carry (by id or by pattern)', async () => {
  const v = tempVault({ '02_Architecture/ADR-001-lock.md': OLD, '02_Architecture/ADR-002-other.md': OLD.replace('ADR-001', 'ADR-002').replace(/id: (\w+)/g, 'id: OTHER-$1') });
  try {
    const { adrs } = await loadVaultRules(v.notes);
    const none = droppedRules(adrs, ['ADR-001-lock'], decisionTemplate('We use a gateway.'));
    assert.deepEqual(none.map((d) => d.ruleId).sort(), ['LOCK', 'NO-TIMER', adrs.find((a) => a.adrPath.includes('001'))!.rules[2].id].sort());
    assert.ok(none.every((d) => d.adrPath === '02_Architecture/ADR-001-lock.md'));
    assert.match(describeDropped(none), /^3 rule\(s\) stop applying .*ADR-001-lock: LOCK, NO-TIMER/);
    // Carried over: the same id, or the same kind and pattern under another id, keeps applying.
    const kept = droppedRules(adrs, ['ADR-001'], '## Invariants\n\n- deny: `charge(` | id: LOCK\n- deny: /eval\\(/ | id: NO-EVAL\n');
    assert.deepEqual(kept.map((d) => d.ruleId), ['NO-TIMER']);
    // Names an ADR by title or vault path too; an ADR nobody supersedes is never listed.
    assert.equal(droppedRules(adrs, ['Lock charges'], '').length, 6, 'both ADRs are titled "Lock charges"');
    assert.deepEqual(droppedRules(adrs, ['02_Architecture/ADR-002-other.md'], '').map((d) => d.ruleId).slice(0, 2), ['OTHER-LOCK', 'OTHER-NO-TIMER']);
    assert.deepEqual(droppedRules(adrs, ['nothing-like-it'], ''), []);
  } finally {
    v.cleanup();
  }
});

test('the decision template has an empty ## Invariants section that reads as no rule and no malformed rule', async () => {
  const body = decisionTemplate('Postgres advisory locks replace the Redis mutex.');
  assert.match(body, /^## Invariants$/m);
  const v = tempVault({ '02_Architecture/ADR-003-new.md': `---\ncategory: decision\n---\n# ADR-003: New\n\n${body}` });
  try {
    const { adrs } = await loadVaultRules(v.notes);
    const a = adrs.find((x) => x.adrPath.endsWith('ADR-003-new.md'));
    assert.equal(a?.rules.length ?? 0, 0);
    assert.deepEqual(a?.diagnostics ?? [], []);
  } finally {
    v.cleanup();
  }
});

test('every flush that supersedes an ADR with a decision lacking its rules says which rules stop applying (core, so MCP and CLI too)', async () => {
  const v = tempVault({ '02_Architecture/ADR-001-lock.md': OLD });
  try {
    const r = await flushNote(locateVault({ cwd: v.root, env: {} }), { title: 'Gateway charges', content: 'We charge through the gateway.', category: 'decision', supersedes: 'ADR-001' });
    assert.deepEqual(r.superseded, ['02_Architecture/ADR-001-lock.md']);
    const w = r.warnings.find((x) => /stop applying/.test(x));
    assert.ok(w, `no warning about the lifted rules: ${JSON.stringify(r.warnings)}`);
    assert.match(w!, /ADR-001-lock: LOCK, NO-TIMER/);
    // A replacement that carries every rule over lifts nothing and says nothing.
    const v2 = tempVault({ '02_Architecture/ADR-001-lock.md': OLD });
    try {
      const carried = '## Invariants\n\n- deny: `charge(` | id: LOCK\n- warn: `setTimeout(` | in: src/** | id: NO-TIMER\n- deny: /eval\\(/\n';
      const r2 = await flushNote(locateVault({ cwd: v2.root, env: {} }), { title: 'Gateway charges', content: carried, category: 'decision', supersedes: 'ADR-001' });
      assert.deepEqual(r2.warnings.filter((x) => /stop applying/.test(x)), []);
    } finally {
      v2.cleanup();
    }
  } finally {
    v.cleanup();
  }
});

test('k0maru flush --supersedes prints the lifted rules as a note on stderr (built CLI)', () => {
  ensureBuilt();
  const v = tempVault({ '02_Architecture/ADR-001-lock.md': OLD });
  try {
    const r = spawnSync(process.execPath, [DIST_CLI, 'flush', '--vault', v.root, '--title', 'Gateway charges', '--category', 'decision', '--supersedes', 'ADR-001'], { encoding: 'utf8', cwd: v.root, input: 'We charge through the gateway.' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /note: 3 rule\(s\) stop applying .*ADR-001-lock: LOCK, NO-TIMER/);
  } finally {
    v.cleanup();
  }
});
