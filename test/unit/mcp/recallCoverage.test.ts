import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST_MCP, ensureBuilt } from '../../helpers/build';
import { textOf } from '../../helpers/mcpClient';
import { tempVault } from '../../helpers/tempVault';

/**
 * Issue 14 through the shipped MCP bundle and a real SDK client: recall_memory says how much of the vault has
 * vectors (effective_mode and the text), and a nonsense query answers "No matching notes." even though the
 * vector channel always has some nearest passage.
 *
 * The vault holds ~3,000 passages: far more than one call's embedding budget (1.5 s) can cover at any speed this
 * model reaches (tens to a few hundred passages/s), so the first answer with vectors is partial. The test asks
 * until the model has loaded (a condition, not a time) and checks every answer against its own coverage figures.
 */
const WORDS = 'cache queue broker replica shard lease token ledger invoice webhook cron backup restore schema migration index cursor batch stream topic retry timeout deadline circuit breaker proxy gateway tenant quota audit rollout canary feature flag secret vault rotation cluster node pod volume snapshot'.split(' ');

function note(i: number): string {
  let seed = i * 7919 + 13;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed);
  const words = Array.from({ length: 600 }, () => WORDS[next() % WORDS.length]);
  return `# Note ${i}: ${WORDS[i % WORDS.length]} design\n\n${words.join(' ')}\n`;
}

test('recall_memory reports partial vector coverage in effective_mode and text; a nonsense query finds nothing', { timeout: 300_000 }, async () => {
  ensureBuilt();
  const v = tempVault(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`notes/n${i}.md`, note(i)])));
  const transport = new StdioClientTransport({ command: process.execPath, args: [DIST_MCP, '--vault', v.root], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'k0maru-coverage-test', version: '1.0.0' });
  type Sc = { effective_mode: string; coverage?: { embedded: number; passages: number }; warnings: string[]; hits: unknown[] };
  try {
    await client.connect(transport);
    const call = async (query: string) => {
      const r = await client.callTool({ name: 'recall_memory', arguments: { query, mode: 'hybrid', limit: 5 } }, undefined, { timeout: 120_000 });
      assert.ok(!r.isError, textOf(r));
      return { text: textOf(r), sc: r.structuredContent as Sc };
    };
    let r = await call('shard replica rotation');
    for (const end = Date.now() + 180_000; r.sc.effective_mode === 'bm25'; r = await call('shard replica rotation')) assert.ok(Date.now() < end, `the model never loaded: ${stderr}`);

    const { embedded, passages } = r.sc.coverage!;
    assert.ok(passages >= 3000 && embedded < passages, `first answer with vectors covers ${embedded}/${passages}`);
    const label = `hybrid (partial: ${Math.floor((100 * embedded) / passages)} % of passages)`;
    assert.equal(r.sc.effective_mode, label);
    assert.ok(r.text.includes(`answered as ${label}`), r.text.slice(-300));

    const nonsense = await call('zzqxw nonexistent');
    assert.deepEqual(nonsense.sc.hits, []);
    assert.match(nonsense.text, /^No matching notes\./);
    assert.match(nonsense.sc.effective_mode, /^hybrid( \(partial: \d+ % of passages\))?$/);
    // Every answer agrees with its own figures: plain "hybrid" only once every passage has a vector.
    const c = nonsense.sc.coverage!;
    assert.equal(nonsense.sc.effective_mode === 'hybrid', c.embedded === c.passages, JSON.stringify(nonsense.sc));
  } finally {
    await client.close();
    v.cleanup();
  }
});
