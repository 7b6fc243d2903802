import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { captureStaticAnswers, GENERATED_PATH, renderStaticAnswers } from '../../../src/mcp/staticAnswersGen';
import { plainInitializeParams } from '../../../src/mcp/quickFront';
import { connectStdio, MCP_ENTRY, textOf } from '../../helpers/mcpClient';
import { tempVault } from '../../helpers/tempVault';

// The quick front (src/mcp/quickFront.ts) answers initialize and tools/list without the SDK: its answers must be
// the SDK's, byte for byte, and everything else must reach the SDK unchanged.

const TSX = pathToFileURL(join(__dirname, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

test('the committed static answers equal a fresh capture from the SDK server (else: npx tsx src/mcp/staticAnswersGen.ts)', async () => {
  assert.equal(readFileSync(GENERATED_PATH, 'utf8'), renderStaticAnswers(await captureStaticAnswers()));
});

/** Raw stdio session: writes `lines`, then a ping with id "end"; resolves with every stdout line once "end" is answered. */
function session(args: string[], lines: string[], env: Record<string, string>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, MCP_ENTRY, ...args], { stdio: ['pipe', 'pipe', 'ignore'], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env } });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('"id":"end"')) {
        child.stdin.end();
        resolve(out.split('\n').filter(Boolean));
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!out.includes('"id":"end"')) reject(new Error(`server exited ${code} before answering; stdout: ${out}`));
    });
    child.stdin.write(lines.map((l) => l + '\n').join('') + JSON.stringify({ jsonrpc: '2.0', id: 'end', method: 'ping' }) + '\n');
  });
}

const init = (id: unknown, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params });
const plainInit = { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} }, clientInfo: { name: 'c', version: '1', title: 'C' } };

// Each case: the lines a client sends; the quick server's stdout must equal the SDK-only server's (K0MARU_MCP_QUICK=0).
const CASES: Record<string, string[]> = {
  'the usual start': [init(1, plainInit), '{"jsonrpc":"2.0","method":"notifications/initialized"}', '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'],
  'an unknown protocol version, a string id, a cursor, CRLF': [init('a', { ...plainInit, protocolVersion: '1999-01-01' }) + '\r', '{"jsonrpc":"2.0","id":"b","method":"tools/list","params":{"cursor":"x"}}'],
  'tools/list before initialize, then a second initialize': ['{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}', init(2, plainInit), init(3, { ...plainInit, protocolVersion: '2024-11-05' })],
  'bad JSON first (SDK handles it), then the usual start': ['{not json', '', init(1, plainInit), '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'],
  'odd fields hand over (the SDK judges them)': [
    init(1, { ...plainInit, capabilities: { sampling: { tools: 'yes' } } }),
    init(2, { ...plainInit, clientInfo: { name: 'c' } }),
    init(3, { ...plainInit, _meta: { progressToken: 1 } }),
    '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{}}}',
    '{"jsonrpc":"2.0","id":5.5,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":6,"method":"tools/list","extra":1}',
  ],
  'after initialize, a call to an unknown tool and a ping': [init(1, plainInit), '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}', '{"jsonrpc":"2.0","id":3,"method":"ping"}', '{"jsonrpc":"2.0","id":4,"method":"tools/list"}'],
};

test('the quick front answers exactly as the SDK server does, and hands everything else over unchanged', async () => {
  const v = tempVault({ '02_Architecture/adr-001-x.md': '---\nstatus: accepted\n---\n# ADR-001\n## Invariants\n- deny: eval(\n' });
  try {
    for (const [name, lines] of Object.entries(CASES)) {
      // Sidecar mode has its own tool list: checked on the usual start.
      for (const args of name === 'the usual start' ? [['--vault', v.root], ['--vault', v.root, '--sidecar']] : [['--vault', v.root]]) {
        const [quick, sdk] = await Promise.all([session(args, lines, {}), session(args, lines, { K0MARU_MCP_QUICK: '0' })]);
        // Answers may interleave differently (the front answers before the SDK is loaded): compare as sets of lines.
        assert.deepEqual([...quick].sort(), [...sdk].sort(), `${name} (${args.join(' ')})`);
      }
    }
  } finally {
    v.cleanup();
  }
});

test('a real SDK client lists the tools from the front and then calls one through the SDK', async () => {
  const v = tempVault({ '02_Architecture/adr-001-x.md': '---\nstatus: accepted\n---\n# ADR-001\n## Invariants\n- deny: eval(\n' });
  const c = await connectStdio(['--vault', v.root]);
  try {
    const { tools } = await c.client.listTools();
    assert.ok(tools.some((t) => t.name === 'guard_check'));
    const r = await c.client.callTool({ name: 'guard_check', arguments: { diff: 'diff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -0,0 +1 @@\n+eval(x)\n' } });
    assert.match(textOf(r), /eval\(/);
    assert.equal(c.client.getServerVersion()?.name, 'k0maru');
  } finally {
    await c.close();
    v.cleanup();
  }
});

test('only initialize params the SDK certainly accepts are answered by the front', () => {
  assert.ok(plainInitializeParams(plainInit));
  assert.ok(plainInitializeParams({ protocolVersion: 'x', capabilities: {}, clientInfo: { name: 'a', version: '1' } }));
  for (const bad of [
    { ...plainInit, capabilities: { roots: { listChanged: 'yes' } } },
    { ...plainInit, capabilities: { tasks: {} } },
    { ...plainInit, clientInfo: { name: 'a', version: 1 } },
    { ...plainInit, protocolVersion: 7 },
    { protocolVersion: 'x', clientInfo: { name: 'a', version: '1' } },
    null,
  ]) assert.equal(plainInitializeParams(bad), false, JSON.stringify(bad));
});
