import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readdirSync } from 'node:fs';
import { createMcpServer } from '../../../src/mcp/server';
import { tempVault } from '../../helpers/tempVault';

test('fuzzed tool arguments never crash the server or write outside the vault', async () => {
  const v = tempVault({ '02_Architecture/adr-001-x.md': '---\nstatus: accepted\n---\n# ADR-001\n## Invariants\n- deny: eval(\n' });
  const k0 = createMcpServer({ vault: v.root, cwd: '/', env: {}, log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await k0.server.connect(serverSide);
  const client = new Client({ name: 'fuzz', version: '1' });
  await client.connect(clientSide);
  const rootEntries = readdirSync(v.root).sort();
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.constantFrom('../../etc/passwd', ']]', '\n', '\u0000', 'A'.repeat(5000), '[[x]]', 'Option<&mut T>', '"unbalanced', 'a AND'));
    const argsFor = (name: string) => {
      const props = Object.keys((tools.find((t) => t.name === name)!.inputSchema.properties ?? {}) as object);
      return fc.dictionary(fc.constantFrom(...props, 'unexpected_key'), value, { maxKeys: props.length + 1 });
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names).chain((name) => fc.tuple(fc.constant(name), argsFor(name))), async ([name, args]) => {
        try {
          const r = await client.callTool({ name, arguments: args as Record<string, unknown> });
          assert.ok(Array.isArray(r.content));
        } catch (err) {
          // Arguments that do not match the schema are a protocol error (-32602); nothing else may escape.
          assert.ok(err instanceof McpError, String(err));
        }
      }),
      { numRuns: 150, seed: 20261130 },
    );
    assert.ok((await client.listTools()).tools.length === names.length, 'still serving');
    assert.deepEqual(readdirSync(v.root).sort(), rootEntries, 'nothing new beside .k0maru/');
  } finally {
    await client.close();
    await k0.close();
    v.cleanup();
  }
});
