import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST_CLI, DIST_MCP, ensureBuilt } from '../../helpers/build';
import { textOf } from '../../helpers/mcpClient';
import { tempVault } from '../../helpers/tempVault';
import { seedVectors } from '../embed/helpers';

/**
 * Issue 13 item 11 through the shipped bundles: a cold model (its load held by $K0MARU_HOLD_MODEL_LOAD until the
 * test releases it) never holds a hybrid recall past its budget. The MCP server answers with BM25 and says why,
 * keeps loading, and answers with vectors once the model is there; the one-shot CLI answers and exits at once.
 */

const NOTES = { 'payments.md': '---\ntitle: Charging cards\n---\n# Charging cards\n\nAcquire a Redis mutex before charging so the card is not charged twice.\n' };
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };

test('the built MCP server answers a cold hybrid recall_memory from BM25 while the model loads, then with vectors', { timeout: 240_000 }, async () => {
  ensureBuilt();
  const v = tempVault(NOTES);
  const hold = join(v.root, 'release-the-model');
  const transport = new StdioClientTransport({ command: process.execPath, args: [DIST_MCP, '--vault', v.root], env: { ...ENV, K0MARU_HOLD_MODEL_LOAD: hold }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'k0maru-cold-model-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    const call = async () => {
      const r = await client.callTool({ name: 'recall_memory', arguments: { query: 'charging cards with a Redis mutex', mode: 'hybrid' } }, undefined, { timeout: 60_000 });
      assert.ok(!r.isError, textOf(r));
      return r.structuredContent as { effective_mode: string; warnings: string[]; hits: { path: string }[] };
    };
    const cold = await call();
    assert.equal(cold.effective_mode, 'bm25', stderr);
    assert.match(cold.warnings[0], /embedding model is still loading .*answered with BM25 only/);

    writeFileSync(hold, '');
    const end = Date.now() + 120_000;
    let warm = await call();
    while (warm.effective_mode !== 'hybrid' || warm.warnings.length) {
      assert.ok(Date.now() < end, `never answered with vectors: ${JSON.stringify(warm)} ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
      warm = await call();
    }
    assert.equal(warm.hits[0].path, 'payments.md');
  } finally {
    await client.close();
    v.cleanup();
  }
});

test('the built CLI answers a cold hybrid recall from BM25 and exits while the model load is still held', { timeout: 120_000 }, async () => {
  ensureBuilt();
  const v = tempVault(NOTES);
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await seedVectors(v.root, 1);
    // The file never appears: the load would never finish, so exiting proves the CLI stopped its worker.
    const env = { ...ENV, K0MARU_HOLD_MODEL_LOAD: join(v.root, 'never') };
    const c = spawn(process.execPath, [DIST_CLI, 'recall', 'Redis mutex', '--mode', 'hybrid', '--json', '--vault', v.root], { env });
    child = c;
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => c.on('exit', (n) => resolve(n)));
    assert.equal(code, 0, err);
    const r = JSON.parse(out) as { effectiveMode: string; warnings: string[]; hits: { path: string }[] };
    assert.equal(r.effectiveMode, 'bm25');
    assert.equal(r.hits[0].path, 'payments.md');
    assert.match(r.warnings[0], /embedding model did not load within this call's budget \(\d+ ms\): answered with BM25 only/);
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // only if it hung
    v.cleanup();
  }
});
