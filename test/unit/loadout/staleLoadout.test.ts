import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getProjectLoadout } from '../../../src/core/loadout/loadout';
import { fitToBudget } from '../../../src/core/loadout/budget';
import { shortReason } from '../../../src/core/loadout/staleMarks';
import { openProject, type Project } from '../../../src/core/project';
import { countTokens } from '../../../src/core/tokens/count';
import { runCliCaptured } from '../../helpers/cli';
import { makeRepo, type TempRepo } from '../guard/helpers';

/**
 * The loadout through the real staleness engine: the newer decision names `src/a.ts`, which changed after it was
 * committed, so it is stale; the older one names nothing. Without staleness the newer one would come first.
 */
function repo(): TempRepo {
  const r = makeRepo({
    '.k0maru/wiki/02_Architecture/adr-002-queue.md': '---\ncategory: decision\ndate: 2026-12-01\nsummary: Retry webhooks from the queue in src/a.ts\n---\n# Queue retries\n\nThe queue retries in `src/a.ts`.\n',
    '.k0maru/wiki/02_Architecture/adr-001-ledger.md': '---\ncategory: decision\ndate: 2026-11-01\nsummary: Keep the ledger append-only\n---\n# Ledger\n\nThe ledger is append-only.\n',
    'src/a.ts': 'export const retries = 3;\n',
    '.gitignore': '.k0maru/index.db*\n.k0maru/cache/\n',
  });
  r.commit('decisions');
  r.write('src/a.ts', 'export const retries = 5;\n');
  r.commit('more retries');
  return r;
}

async function withScanned<T>(r: TempRepo, fn: (p: Project) => Promise<T>): Promise<T> {
  const p = openProject({ cwd: r.root });
  try {
    await p.scan();
    return await fn(p);
  } finally {
    p.close();
  }
}

test('a stale decision is marked ⚠ with a short reason, reported in staleDecisions, and the fresh one is listed first', async () => {
  const r = repo();
  try {
    await withScanned(r, async (p) => {
      const l = await getProjectLoadout(p, { budget: 1000 });
      assert.deepEqual(l.staleDecisions.map((s) => s.path), ['02_Architecture/adr-002-queue.md']);
      assert.match(l.staleDecisions[0].since, /^[0-9a-f]{7,}$/);
      assert.match(l.markdown, /^- ⚠ \[\[adr-002-queue\]\] \(stale: .*src\/a\.ts.*\): Retry webhooks/m);
      assert.match(l.markdown, /^- \[\[adr-001-ledger\]\]: Keep the ledger append-only$/m);
      assert.ok(l.markdown.indexOf('adr-001-ledger') < l.markdown.indexOf('adr-002-queue') || l.markdown.includes('⚠ Stale: 1 decision'));
      assert.ok(l.tokens <= 1000);
      assert.equal(l.staleness.enabled, true);
    });
  } finally {
    r.dispose();
  }
});

test('a stale and a fresh decision competing for the last slot: the fresh one wins, and the budget holds at every size', async () => {
  const r = repo();
  try {
    await withScanned(r, async (p) => {
      let contested = 0;
      for (let budget = 20; budget <= 160; budget++) {
        const l = await getProjectLoadout(p, { budget });
        assert.ok(l.tokens <= budget, `budget ${budget}: ${l.tokens} tokens`);
        assert.equal(countTokens(l.markdown), l.tokens);
        const hasFresh = l.markdown.includes('[[adr-001-ledger]]');
        const hasStale = l.markdown.includes('[[adr-002-queue]]');
        // Never the stale one without the fresh one: the fresh decision keeps its line longer.
        assert.ok(!hasStale || hasFresh, `budget ${budget}: stale kept, fresh dropped\n${l.markdown}`);
        if (hasFresh && !hasStale) contested++;
      }
      assert.ok(contested > 0, 'some budget holds exactly one of the two: that is where they compete');
    });
  } finally {
    r.dispose();
  }
});

test('the reason goes before any line does: a short form is used first, lowest priority first', () => {
  const sections = [
    { heading: '# H', lines: [{ text: '- keep me', priority: 900 }] },
    { heading: '## L3', lines: [{ text: '- ⚠ [[a]] (stale: `src/a.ts` changed in 3 commits since this note): rule one · rule two', short: '- ⚠ [[a]]: rule one · rule two', priority: 500 }, { text: '- [[b]]: fresh', priority: 600 }] },
  ];
  const full = fitToBudget(sections, 1000);
  assert.equal(full.shortened, 0);
  const tight = countTokens('# H\n- keep me\n\n## L3\n- ⚠ [[a]]: rule one · rule two\n- [[b]]: fresh');
  const fitted = fitToBudget(sections, tight);
  assert.deepEqual([fitted.shortened, fitted.dropped], [1, 0]);
  assert.ok(fitted.text.includes('- ⚠ [[a]]: rule one · rule two') && fitted.tokens <= tight);
  assert.equal(shortReason("`src/db/pool.go` changed in 3 commits since this note (last abc1234 2026-11-20 'switch to pgx')"), '`src/db/pool.go` changed in 3 commits since this note');
});

test('k0maru loadout --json reports staleDecisions; the text marks ⚠', async () => {
  const r = repo();
  try {
    const json = await runCliCaptured(['loadout', '--json'], { cwd: r.root });
    assert.equal(json.code, 0, json.err);
    const l = JSON.parse(json.out) as { staleDecisions: { path: string; reason: string }[]; markdown: string };
    assert.deepEqual(l.staleDecisions.map((s) => s.path), ['02_Architecture/adr-002-queue.md']);
    const text = await runCliCaptured(['loadout'], { cwd: r.root });
    assert.match(text.out, /⚠ \[\[adr-002-queue\]\]/);
  } finally {
    r.dispose();
  }
});

test('outside a git repository staleness is off, said in `staleness`, and nothing is marked', async () => {
  const { tempVault } = await import('../../helpers/tempVault');
  const v = tempVault({ '02_Architecture/adr-001.md': '---\ncategory: decision\n---\n# A\n\nNames `src/a.ts`.\n' });
  try {
    const p = openProject({ cwd: v.root });
    try {
      await p.scan();
      const l = await getProjectLoadout(p);
      assert.equal(l.staleness.enabled, false);
      assert.deepEqual(l.staleDecisions, []);
      assert.doesNotMatch(l.markdown, /⚠/);
    } finally {
      p.close();
    }
  } finally {
    v.cleanup();
  }
});
