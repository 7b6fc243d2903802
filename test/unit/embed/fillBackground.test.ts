import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProjectHost } from '../../../src/core/host';
import type { EmbeddingProgress } from '../../../src/core/embed/vectorSession';
import { IndexDb } from '../../../src/core/index/db';
import { tempVault } from '../../helpers/tempVault';
import { ensureBundledModel } from './helpers';
import { writeTinyModel } from './tinyModel';

/**
 * Issue 14 item 1, the background fill of a long-lived host (ProjectHost, as the MCP server, `k0maru ui` and the
 * editor run it) and its bad inputs: a worker crashing mid-fill, the vault edited mid-fill, two hosts filling one
 * index (same model, and two models), and a model folder that is missing or corrupt. Waits are on conditions
 * (the fill's own progress and covered events), never on time.
 */

const WORDS = 'cache queue broker replica shard lease token ledger invoice webhook cron backup restore schema migration index cursor batch stream topic retry timeout deadline circuit breaker proxy gateway tenant quota audit rollout canary'.split(' ');

function notes(n: number, words = 130): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => {
      let seed = i * 7919 + 13;
      const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed);
      return [`n${i}.md`, `# Note ${i} about ${WORDS[i % WORDS.length]}\n\n${Array.from({ length: words }, () => WORDS[next() % WORDS.length]).join(' ')}\n`];
    }),
  );
}

/** A host with a background fill whose events the test can wait for. */
function fillingHost(root: string, env: NodeJS.ProcessEnv) {
  const events: EmbeddingProgress[] = [];
  const logs: string[] = [];
  let covered!: () => void;
  const coveredOnce = new Promise<void>((r) => (covered = r));
  const waiters: { when: (p: EmbeddingProgress) => boolean; resolve: (p: EmbeddingProgress) => void }[] = [];
  const host = new ProjectHost({
    vault: root,
    cwd: root,
    env,
    log: (level, m) => logs.push(`${level}: ${m}`),
    backgroundFill: {
      stepMs: 500,
      onCovered: () => covered(),
      onProgress: (p) => {
        events.push(p);
        for (const w of waiters.splice(0)) {
          if (w.when(p)) w.resolve(p);
          else waiters.push(w);
        }
      },
    },
  });
  /** The first progress event (already seen, or still to come) that satisfies `when`. */
  const progressWhere = (when: (p: EmbeddingProgress) => boolean) => {
    const seen = events.find(when);
    return seen ? Promise.resolve(seen) : new Promise<EmbeddingProgress>((resolve) => waiters.push({ when, resolve }));
  };
  return { host, events, logs, covered: coveredOnce, progressWhere };
}

test('a worker that crashes mid-fill: recall answers BM25 with the reason, the fill resumes and covers the vault', { timeout: 300_000 }, async () => {
  const model = ensureBundledModel();
  // Long enough notes that the fill takes several steps on a fast machine too: the crash must land mid-fill.
  const v = tempVault(notes(40, 600));
  const { host, events, logs, covered, progressWhere } = fillingHost(v.root, { K0MARU_MODEL: model });
  try {
    // The first hybrid recall starts the model; its budget covers the load here, but embeds nothing itself.
    const first = await host.recall('shard replica', { mode: 'hybrid', budgetMs: 60_000 });
    assert.ok(first.coverage && first.coverage.embedded < first.coverage.passages, JSON.stringify(first.coverage));
    const midway = await progressWhere((p) => p.embedded > 0 && p.embedded < p.passages);
    const session = (host as unknown as { vectorSession: { loader: { ready?: { worker: { crashForTest(): Promise<void> } } } } }).vectorSession;
    await session.loader.ready!.worker.crashForTest();
    // Asked right after the crash with no time for the reload: BM25, and why.
    const during = await host.recall('shard replica', { mode: 'hybrid', budgetMs: 1 });
    assert.equal(during.effectiveMode, 'bm25');
    assert.match(during.warnings.join(' '), /answered with BM25 only/);
    await covered;
    assert.ok(logs.some((l) => /crashed during the background fill/.test(l)), logs.join('\n'));
    const last = events[events.length - 1];
    assert.equal(last.embedded, last.passages);
    assert.ok(last.passages >= midway.passages);
    const after = await host.recall('shard replica', { mode: 'hybrid', budgetMs: 60_000 });
    assert.equal(after.effectiveModeLabel, 'hybrid');
    assert.deepEqual(after.coverage, { embedded: last.passages, passages: last.passages });
  } finally {
    await host.close();
    v.cleanup();
  }
});

test('the vault edited during the fill: the fill follows the scan and covers the new passages too', { timeout: 300_000 }, async () => {
  const model = ensureBundledModel();
  const v = tempVault(notes(40, 600));
  const { host, progressWhere } = fillingHost(v.root, { K0MARU_MODEL: model });
  try {
    const first = await host.recall('gateway quota', { mode: 'hybrid', budgetMs: 60_000 });
    const before = first.coverage!.passages;
    // The fill announces itself (0 of N) before it embeds anything, so editing on that event edits mid-fill however
    // fast the model runs (waiting for a partly embedded step stopped happening once one step could cover the vault).
    await progressWhere((p) => p.filling && p.embedded < p.passages);
    v.write('payments.md', '# Charging cards\n\nAcquire a Redis mutex before charging so the card is not charged twice.\n');
    v.write('n0.md', '# Note 0 rewritten\n\nBlue-green deployments switch all traffic at once after the smoke tests pass.\n');
    const edited = await host.recall('charging cards', { mode: 'hybrid', budgetMs: 60_000 });
    assert.equal(edited.hits[0]?.path, 'payments.md');
    // Covered counts only once it covers the vault as the edit left it: the fill may have covered the old passages first.
    await progressWhere((p) => p.passages !== before && p.embedded === p.passages);
    const done = await host.recall('how do we avoid charging a card twice', { mode: 'hybrid', budgetMs: 60_000 });
    assert.equal(done.effectiveModeLabel, 'hybrid', JSON.stringify(done.coverage));
    assert.notEqual(done.coverage!.passages, before);
    assert.equal(done.hits[0]?.path, 'payments.md');
  } finally {
    await host.close();
    v.cleanup();
  }
});

test('two hosts fill one index at once: same model converges without duplicates, two models never mix', { timeout: 300_000 }, async () => {
  const bundled = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-fill-models-'));
  const tiny8 = join(tmp, 'tiny8');
  const tiny16 = join(tmp, 'tiny16');
  writeTinyModel(tiny8, bundled, 'tiny-eight', 8);
  writeTinyModel(tiny16, bundled, 'tiny-sixteen', 16);
  const v = tempVault(notes(120, 400));
  const a = fillingHost(v.root, { K0MARU_MODEL: tiny8 });
  const b = fillingHost(v.root, { K0MARU_MODEL: tiny8 });
  const c = fillingHost(v.root, { K0MARU_MODEL: tiny16 });
  try {
    await Promise.all([a, b, c].map((h) => h.host.recall('ledger invoice', { mode: 'hybrid', budgetMs: 60_000 })));
    await Promise.all([a.covered, b.covered, c.covered]);
    const finals = await Promise.all([a, b, c].map((h) => h.host.recall('ledger invoice', { mode: 'hybrid', budgetMs: 60_000 })));
    for (const r of finals) assert.equal(r.effectiveModeLabel, 'hybrid', JSON.stringify(r.coverage));
    const idx = IndexDb.open(join(v.root, '.k0maru', 'index.db'));
    try {
      const rows = idx.all('SELECT model, COUNT(*) AS n, MIN(length(vec)) AS lo, MAX(length(vec)) AS hi FROM vectors GROUP BY model ORDER BY model');
      assert.deepEqual(
        rows.map((r) => [r.model, Number(r.lo), Number(r.hi)]),
        [
          ['tiny-eight', 32, 32],
          ['tiny-sixteen', 64, 64],
        ],
      );
      assert.equal(Number(rows[0].n), Number(rows[1].n), 'one vector per distinct passage and model, whoever embedded it');
    } finally {
      idx.close();
    }
  } finally {
    await Promise.all([a, b, c].map((h) => h.host.close()));
    v.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a missing or corrupt model folder: recall answers BM25 with the reason and no fill runs', { timeout: 120_000 }, async () => {
  const bundled = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-fill-bad-'));
  const corrupt = join(tmp, 'corrupt');
  writeTinyModel(corrupt, bundled, 'tiny-corrupt', 8);
  writeFileSync(join(corrupt, 'model.onnx'), 'not an onnx graph');
  const v = tempVault(notes(5));
  try {
    for (const dir of [join(tmp, 'missing'), corrupt]) {
      const { host } = fillingHost(v.root, { K0MARU_MODEL: dir });
      try {
        for (let i = 0; i < 2; i++) {
          const r = await host.recall('shard replica', { mode: 'hybrid', budgetMs: 30_000 });
          assert.equal(r.effectiveMode, 'bm25');
          assert.match(r.warnings[0], /answered with BM25 only/);
          assert.ok(r.hits.length > 0);
        }
        assert.equal(host.embedding(), undefined, 'no channel, so nothing to fill');
      } finally {
        await host.close();
      }
    }
  } finally {
    v.cleanup();
    rmSync(tmp, { recursive: true, force: true });
  }
});
