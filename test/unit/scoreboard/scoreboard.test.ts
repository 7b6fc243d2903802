import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gcSession } from '../../../src/core/gc';
import { LEDGER_FILE, offloadLog } from '../../../src/core/offload';
import { openProject } from '../../../src/core/project';
import { readScoreboard } from '../../../src/core/scoreboard/scoreboard';
import { DEFAULT_PRICES, readPrices, savePrices } from '../../../src/core/scoreboard/prices';
import { runCliCaptured } from '../../helpers/cli';
import { tempVault } from '../../helpers/tempVault';

const bigOutput = (n: number) => Array.from({ length: n }, (_, i) => `   Compiling crate-${i} v0.${i}.0 (/src/crate-${i})`).join('\n');

/** A trajectory with one huge tool output early on (the GC offloads it) and a hot window at the end. */
function trajectory(id: string, turns: number) {
  const t = [{ role: 'user', content: 'build the workspace' }, { role: 'tool', tool_name: 'bash', content: bigOutput(400) }];
  for (let i = 0; i < turns; i++) t.push({ role: 'assistant', content: `step ${i}: looked at module ${i} and changed nothing important in it at all` });
  return { session_id: id, turns: t };
}

function indexTotals(project: ReturnType<typeof openProject>) {
  const r = project.index.get('SELECT SUM(tokens_before - tokens_after) AS saved, COUNT(*) AS n FROM token_events WHERE counted = 1')!;
  return { saved: Number(r.saved ?? 0), n: Number(r.n) };
}

test('the scoreboard counts offloads and the latest GC run per session, from the index, and survives a rebuild', async () => {
  const v = tempVault({ 'a.md': '# A\n' });
  const project = openProject({ vault: v.root });
  try {
    const paths = project.paths;
    const empty = readScoreboard(project);
    assert.equal(empty.tokensSaved, 0);
    assert.deepEqual(empty.series, []);

    const a = await offloadLog(paths, { text: bigOutput(300), source: 'cli' });
    const b = await offloadLog(paths, { text: bigOutput(300), source: 'mcp' }); // same bytes: a deduplicated offload still saved tokens
    const g1 = await gcSession(paths, { trajectory: trajectory('s1', 12), hot_window: 2 });
    const g2 = await gcSession(paths, { trajectory: trajectory('s1', 20), hot_window: 2 }); // the same session, later
    const g3 = await gcSession(paths, { trajectory: trajectory('s2', 12), hot_window: 2 });
    appendFileSync(join(paths.refsDir, LEDGER_FILE), '{"node_id": "node_12\n'); // a torn line
    assert.ok(g1.report.nodes_created.length > 0, 'the GC offloaded the big tool output (an offload line with source gc)');

    const s = readScoreboard(project);
    const offloadSaved = a.tokensBefore - a.tokensAfter + (b.tokensBefore - b.tokensAfter);
    const gcSaved = g2.report.tokens_before - g2.report.tokens_after + (g3.report.tokens_before - g3.report.tokens_after);
    assert.equal(s.offload.events, 2, 'offloads made inside a GC run are not counted twice');
    assert.equal(s.offload.tokensSaved, offloadSaved);
    assert.equal(s.gc.events, 2, 'the first run of s1 is replaced by its later run');
    assert.equal(s.gc.tokensSaved, gcSaved);
    assert.equal(s.tokensSaved, offloadSaved + gcSaved);
    assert.equal(s.skipped, 1);
    assert.equal(s.series.length, 1);
    assert.equal(s.series[0].cumulative, s.tokensSaved);
    assert.deepEqual(s.usdSaved, DEFAULT_PRICES.map((p) => (s.tokensSaved / 1e6) * p.usdPerMillionInput));
    assert.deepEqual(indexTotals(project), { saved: s.tokensSaved, n: 4 });

    // Incremental: only the new line is read; the total moves by exactly its saving.
    const c = await offloadLog(paths, { text: bigOutput(500), source: 'cli' });
    assert.equal(readScoreboard(project).tokensSaved, s.tokensSaved + c.tokensBefore - c.tokensAfter);

    // The index is a cache: delete it, and the scoreboard comes back identical from the ledger.
    const before = readScoreboard(project);
    project.close();
    rmSync(paths.indexPath, { force: true });
    const reopened = openProject({ vault: v.root });
    try {
      const after = readScoreboard(reopened);
      assert.deepEqual({ ...after, skipped: 0 }, { ...before, skipped: 0 });
      assert.equal(after.skipped, 1);

      // A ledger replaced by a shorter one (a checkout of an older version) is imported again, not appended to.
      const lines = readFileSync(join(paths.refsDir, LEDGER_FILE), 'utf8').split('\n');
      writeFileSync(join(paths.refsDir, LEDGER_FILE), lines[0] + '\n');
      assert.equal(readScoreboard(reopened).tokensSaved, a.tokensBefore - a.tokensAfter);
      rmSync(join(paths.refsDir, LEDGER_FILE));
      assert.equal(readScoreboard(reopened).tokensSaved, 0);
    } finally {
      reopened.close();
    }
  } finally {
    project.close();
    v.cleanup();
  }
});

test('prices: defaults, an edited table saved atomically, a broken file falls back with the reason', () => {
  const v = tempVault();
  const paths = { k0Dir: join(v.root, '.k0maru'), projectRoot: v.root };
  try {
    assert.equal(readPrices(paths).source, 'defaults');
    const tiers = [{ name: 'Ours', models: 'the one we use', usdPerMillionInput: 2.5 }];
    assert.deepEqual(savePrices(paths, tiers), { saved: '.k0maru/prices.json', tiers: 1 });
    assert.deepEqual(readPrices(paths), { tiers, source: 'vault', file: '.k0maru/prices.json' });
    assert.throws(() => savePrices(paths, [{ name: '', models: '', usdPerMillionInput: -1 }]), { code: 'INVALID_ARGUMENT' });
    assert.deepEqual(readPrices(paths).tiers, tiers, 'a rejected save leaves the file alone');
    writeFileSync(join(paths.k0Dir, 'prices.json'), '{"tiers": [{"name": "x"}]}');
    const broken = readPrices(paths);
    assert.equal(broken.source, 'defaults');
    assert.match(broken.warning ?? '', /prices\.json: tiers\.0\.\w+/);
    writeFileSync(join(paths.k0Dir, 'prices.json'), '{oops');
    assert.match(readPrices(paths).warning ?? '', /not valid JSON/);
  } finally {
    v.cleanup();
  }
});

test('k0maru scoreboard prints the same figures as the console, and --json is the console payload', async () => {
  const v = tempVault({ 'a.md': '# A\n' });
  try {
    const off = await runCliCaptured(['offload', '--task', 'build'], { cwd: v.root, stdin: bigOutput(300) });
    assert.equal(off.code, 0, off.err);
    writeFileSync(join(v.root, '.k0maru', 'prices.json'), JSON.stringify({ tiers: [{ name: 'Ours', models: 'm', usdPerMillionInput: 1000 }] }));
    const json = await runCliCaptured(['scoreboard', '--json'], { cwd: v.root });
    assert.equal(json.code, 0, json.err);
    const s = JSON.parse(json.out) as ReturnType<typeof readScoreboard>;
    assert.ok(s.tokensSaved > 1000);
    assert.equal(s.offload.events, 1);
    assert.equal(s.pricesSource, 'vault');
    const text = await runCliCaptured(['scoreboard'], { cwd: v.root });
    assert.match(text.out, new RegExp(`Tokens saved: ${s.tokensSaved.toLocaleString('en-US')}`));
    assert.match(text.out, new RegExp(`Ours +\\$${((s.tokensSaved / 1e6) * 1000).toFixed(2).replace('.', '\\.')} `));
    // Less than a cent is a saving all the same: "<$0.01", the console's rule (src/shared/format.ts), never "$0.00".
    writeFileSync(join(v.root, '.k0maru', 'prices.json'), JSON.stringify({ tiers: [{ name: 'Cheap', models: 'm', usdPerMillionInput: 0.001 }] }));
    const small = await runCliCaptured(['scoreboard'], { cwd: v.root });
    assert.ok((s.tokensSaved / 1e6) * 0.001 < 0.01);
    assert.match(small.out, /Cheap +<\$0\.01 /);
  } finally {
    v.cleanup();
  }
});
