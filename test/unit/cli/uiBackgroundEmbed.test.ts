import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { startConsoleServer } from '../../../src/cli/ui/server';
import { pathsForProject } from '../../../src/core/vault/paths';
import { tempVault } from '../../helpers/tempVault';
import { ensureBundledModel } from '../embed/helpers';
import { openEvents, rpc } from './uiHelpers';

const TOPICS = ['payments', 'caching', 'queues', 'auth', 'search', 'billing', 'deploys', 'metrics'];

test('k0maru ui keeps embedding in the background after a hybrid search, then tells the page (vector column fills in)', { timeout: 240_000 }, async () => {
  // Enough passages that the first search's 1.5 s embedding budget cannot cover them (≈ 30 passages/s here).
  const notes: Record<string, string> = {};
  for (let i = 0; i < 160; i++) {
    const t = TOPICS[i % TOPICS.length];
    notes[`n${i}.md`] = `# ${t} note ${i}\n\nHow the ${t} service handles retries, timeouts and idempotency keys, case ${i}.\n\n## Details\n\nThe ${t} team decided on option ${i % 5} after an incident in week ${i}.\n`;
  }
  const v = tempVault(notes);
  const logs: string[] = [];
  const server = await startConsoleServer({
    paths: pathsForProject(v.root),
    port: 0,
    version: 'test',
    env: { K0MARU_MODEL: ensureBundledModel() },
    log: (l, m) => logs.push(`${l}: ${m}`),
  });
  const events = await openEvents(server.port, server.token);
  try {
    const search = async (id: number) => {
      const r = await rpc(server.port, server.token, { kind: 'request', id, request: { method: 'search', params: { query: 'payments idempotency', mode: 'hybrid', fusion: 'default', limit: 10 } } });
      const msg = JSON.parse(r.body) as { ok: boolean; result: { effectiveMode: string; pendingVectors?: number; warnings: string[]; hits: { vector?: unknown }[] } };
      assert.ok(msg.ok, r.body);
      return msg.result;
    };
    const first = await search(1);
    // Within its budget the first search either got the model (and left passages to embed) or answered with BM25
    // while the model still loads; either way the server goes on loading and embedding by itself.
    if (first.effectiveMode === 'hybrid') assert.ok((first.pendingVectors ?? 0) > 0, `the first search should leave passages to embed (pending ${first.pendingVectors})`);
    else assert.match(first.warnings[0] ?? '', /embedding model is still loading/);
    // No further search: the server finishes on its own and pushes vaultChanged so pages search again.
    await events.next((e) => (e as { event?: string }).event === 'vaultChanged', 200_000);
    assert.ok(logs.some((l) => /embedding \d+ passage\(s\) in the background/.test(l)), logs.join('\n'));
    const second = await search(2);
    assert.equal(second.pendingVectors, 0);
    assert.ok(second.hits.every((h) => h.vector), 'every hit now has its vector figures');
  } finally {
    events.close();
    await server.close();
    v.cleanup();
  }
});
