import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';
import { seedVectors } from '../embed/helpers';
import { MAX_RECALL_BUDGET_MS, parseBudgetMs } from '../../../src/cli/commands/recall';

/**
 * Issue 14 through the built one-shot CLI: `recall` says how much of the vault has vectors (stderr note, --json
 * effectiveModeLabel + coverage) and a nonsense query prints "no matching notes". ~3,000 passages of which 100 have
 * vectors (a one-shot recall embeds only its query), so answers stay partial. The calls that must answer hybrid
 * pass a generous --budget-ms: the model loads in 2–8 s here depending on the machine's load, so the default 3 s
 * would make the outcome depend on the machine's speed; with the budget it depends only on the model loading.
 */
const WORDS = 'cache queue broker replica shard lease token ledger invoice webhook cron backup restore schema migration index cursor batch stream topic retry timeout deadline circuit breaker proxy gateway tenant quota audit rollout canary'.split(' ');
function note(i: number): string {
  let seed = i * 104729 + 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed);
  return `# Note ${i}\n\n${Array.from({ length: 600 }, () => WORDS[next() % WORDS.length]).join(' ')}\n`;
}
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };

/** Long enough for any model load this machine will see; the call returns as soon as the model is ready. */
const GENEROUS = String(MAX_RECALL_BUDGET_MS);

test('built CLI recall: partial coverage said in text and --json; nonsense query prints no matching notes; --budget-ms reaches the model wait', { timeout: 600_000 }, async () => {
  ensureBuilt();
  const v = tempVault(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`n${i}.md`, note(i)])));
  await seedVectors(v.root, 100);
  const run = (...args: string[]) => spawnSync(process.execPath, [DIST_CLI, ...args, '--vault', v.root], { env: ENV, encoding: 'utf8', timeout: 280_000 });
  try {
    type J = { effectiveMode: string; effectiveModeLabel: string; warnings: string[]; coverage?: { embedded: number; passages: number } };
    const r = run('recall', 'shard replica', '--mode', 'hybrid', '--budget-ms', GENEROUS, '--json');
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as J;
    assert.equal(j.effectiveMode, 'hybrid', `the first call answers hybrid: ${j.warnings.join(' | ')}`);
    const { embedded, passages } = j.coverage!;
    assert.ok(passages >= 3000 && embedded < passages, `${embedded}/${passages}`);
    // 100 distinct passage hashes were seeded; passages with the same text share one vector, so a few more count.
    assert.ok(embedded >= 100, `${embedded}`);
    assert.equal(j.effectiveModeLabel, `hybrid (partial: ${Math.floor((100 * embedded) / passages)} % of passages)`);

    const text = run('recall', 'zzqxw nonexistent', '--mode', 'hybrid', '--budget-ms', GENEROUS);
    assert.equal(text.status, 0, text.stderr);
    assert.equal(text.stdout, '');
    assert.match(text.stderr, /no matching notes/);
    assert.match(text.stderr, /note: answered as hybrid \(partial: \d+ % of passages\)/);
    assert.doesNotMatch(text.stderr, /answered with BM25 only/);

    // A zero budget never waits for the model: the same vault answers BM25 and says the load ran out of budget.
    const none = run('recall', 'shard replica', '--mode', 'hybrid', '--budget-ms', '0', '--json');
    assert.equal(none.status, 0, none.stderr);
    const n = JSON.parse(none.stdout) as J;
    assert.equal(n.effectiveMode, 'bm25');
    assert.ok(n.warnings.some((w) => /did not load within this call's budget/.test(w)), n.warnings.join(' | '));
  } finally {
    v.cleanup();
  }
});

test('built CLI recall: a bad --budget-ms is a usage error (exit 2, INVALID_ARGUMENT) before anything is opened', { timeout: 120_000 }, () => {
  ensureBuilt();
  const v = tempVault({ 'a.md': '# A\n\nshard replica\n' });
  try {
    for (const bad of ['1e3', '-1', '2.5', 'soon', '', String(MAX_RECALL_BUDGET_MS + 1)]) {
      const r = spawnSync(process.execPath, [DIST_CLI, 'recall', 'shard', `--budget-ms=${bad}`, '--json', '--vault', v.root], { env: ENV, encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 2, `${bad}: ${r.stderr}`);
      const err = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
      assert.equal(err.code, 'INVALID_ARGUMENT', bad);
      assert.match(err.message, /--budget-ms must be an integer from 0 to 600000/, bad);
    }
    const text = spawnSync(process.execPath, [DIST_CLI, 'recall', 'shard', '--budget-ms', 'soon', '--vault', v.root], { env: ENV, encoding: 'utf8', timeout: 60_000 });
    assert.equal(text.status, 2);
    assert.match(text.stderr, /\[INVALID_ARGUMENT\]/);
    assert.match(text.stderr, /Usage: k0maru recall .*\[--budget-ms N\]/);
    // Nothing was created for a refused call: the vault has no index yet.
    assert.equal(existsSync(join(v.root, '.k0maru', 'index.db')), false);
  } finally {
    v.cleanup();
  }
});

test('parseBudgetMs: default 3000, digits from 0 to the cap, everything else refused', () => {
  assert.equal(parseBudgetMs(undefined), 3000);
  assert.equal(parseBudgetMs('0'), 0);
  assert.equal(parseBudgetMs('45000'), 45000);
  assert.equal(parseBudgetMs(String(MAX_RECALL_BUDGET_MS)), MAX_RECALL_BUDGET_MS);
  for (const bad of ['', ' 5', '0x10', '1e3', '-0', '+5', '9'.repeat(20)]) assert.throws(() => parseBudgetMs(bad), { code: 'INVALID_ARGUMENT' }, bad);
});
