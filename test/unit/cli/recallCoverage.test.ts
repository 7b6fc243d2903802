import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';
import { openProject } from '../../../src/core/project';
import { VectorStore } from '../../../src/core/search/vector';

/**
 * Issue 14 through the built one-shot CLI: `recall` says how much of the vault has vectors (stderr note, --json
 * effectiveModeLabel + coverage) and a nonsense query prints "no matching notes". ~3,000 passages of which 100 have
 * vectors (a one-shot recall embeds only its query), so answers stay partial; the test asks until the model loaded in time.
 */
const WORDS = 'cache queue broker replica shard lease token ledger invoice webhook cron backup restore schema migration index cursor batch stream topic retry timeout deadline circuit breaker proxy gateway tenant quota audit rollout canary'.split(' ');
function note(i: number): string {
  let seed = i * 104729 + 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed);
  return `# Note ${i}\n\n${Array.from({ length: 600 }, () => WORDS[next() % WORDS.length]).join(' ')}\n`;
}
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };

/**
 * Stores made-up unit vectors for the first `n` passages, as a partial `scan --embed` would have: a one-shot
 * recall starts the model only when some vector of it exists (issue 14 item 4). Random 512-d directions sit near
 * cosine 0 to any query, far below the relevance floor.
 */
async function seedVectors(root: string, n: number): Promise<void> {
  const project = openProject({ vault: root, env: {} });
  try {
    await project.scan();
    const store = new VectorStore(project.index, 'use-lite-en-v1', 512);
    store.put(
      store.pendingPassages().slice(0, n).map((p, i) => {
        const v = Float32Array.from({ length: 512 }, (_, j) => Math.sin((i + 1) * (j + 3)));
        const norm = Math.hypot(...v);
        return { hash: p.hash, vector: v.map((x) => x / norm) };
      }),
    );
  } finally {
    project.close();
  }
}

test('built CLI recall: partial coverage said in text and --json; nonsense query prints no matching notes', { timeout: 300_000 }, async () => {
  ensureBuilt();
  const v = tempVault(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`n${i}.md`, note(i)])));
  await seedVectors(v.root, 100);
  const run = (...args: string[]) => spawnSync(process.execPath, [DIST_CLI, ...args, '--vault', v.root], { env: ENV, encoding: 'utf8', timeout: 120_000 });
  try {
    type J = { effectiveMode: string; effectiveModeLabel: string; coverage?: { embedded: number; passages: number } };
    let j: J = { effectiveMode: 'bm25', effectiveModeLabel: 'bm25' };
    for (let tries = 0; j.effectiveMode === 'bm25'; tries++) {
      assert.ok(tries < 20, 'the model never loaded within a call');
      const r = run('recall', 'shard replica', '--mode', 'hybrid', '--json');
      assert.equal(r.status, 0, r.stderr);
      j = JSON.parse(r.stdout) as J;
    }
    const { embedded, passages } = j.coverage!;
    assert.ok(passages >= 3000 && embedded < passages, `${embedded}/${passages}`);
    assert.equal(j.effectiveModeLabel, `hybrid (partial: ${Math.floor((100 * embedded) / passages)} % of passages)`);

    const text = run('recall', 'zzqxw nonexistent', '--mode', 'hybrid');
    assert.equal(text.status, 0, text.stderr);
    assert.equal(text.stdout, '');
    assert.match(text.stderr, /no matching notes/);
    // Unless this call's model load ran out of budget (then it says BM25), it says how partial the answer was.
    if (!/answered with BM25 only/.test(text.stderr)) assert.match(text.stderr, /note: answered as hybrid \(partial: \d+ % of passages\)/);
  } finally {
    v.cleanup();
  }
});
