import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OversizeLineFilter } from '../../../src/mcp/oversizeFilter';

/** Feeds the chunks through the filter; returns the lines passed on and the replies sent. */
async function run(chunks: string[], limit: number) {
  const replies: unknown[] = [];
  const f = new OversizeLineFilter(limit, (m) => replies.push(m), () => {});
  const out: Buffer[] = [];
  f.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve) => f.on('end', resolve));
  for (const c of chunks) f.write(Buffer.from(c));
  f.end();
  await done;
  return { passed: Buffer.concat(out).toString(), pushes: out.length, replies };
}

test('lines under the limit pass through unchanged, however the chunks split them', async () => {
  const msgs = ['{"jsonrpc":"2.0","id":1,"method":"ping"}\n', '{"jsonrpc":"2.0","method":"notifications/initialized"}\n', '{"id":2}\n'];
  const all = msgs.join('');
  for (let size = 1; size <= all.length; size += 7) {
    const chunks = [];
    for (let i = 0; i < all.length; i += size) chunks.push(all.slice(i, i + size));
    const r = await run(chunks, 100);
    assert.equal(r.passed, all);
    assert.equal(r.pushes, 3, 'one push per line');
    assert.deepEqual(r.replies, []);
  }
});

test('an oversized tools/call is dropped and answered with a FILE_TOO_LARGE tool error; the next line still passes', async () => {
  const big = `{"method":"tools/call","params":{"name":"gc_session_context","arguments":{"trajectory_json":"${'x'.repeat(5000)}"}},"jsonrpc":"2.0","id":7}\n`;
  const next = '{"jsonrpc":"2.0","id":8,"method":"ping"}\n';
  const chunks = [];
  const all = big + next;
  for (let i = 0; i < all.length; i += 333) chunks.push(all.slice(i, i + 333));
  const r = await run(chunks, 1000);
  assert.equal(r.passed, next);
  assert.equal(r.replies.length, 1);
  const reply = r.replies[0] as { id: number; result: { isError: boolean; content: { text: string }[] } };
  assert.equal(reply.id, 7);
  assert.equal(reply.result.isError, true);
  assert.match(reply.result.content[0].text, /^FILE_TOO_LARGE: /);
});

test('an oversized non-tool request gets a JSON-RPC error; an oversized notification gets nothing', async () => {
  const req = `{"method":"resources/read","params":{"x":"${'y'.repeat(3000)}"},"jsonrpc":"2.0","id":"abc"}\n`;
  const note = `{"method":"notifications/message","params":{"x":"${'y'.repeat(3000)}"},"jsonrpc":"2.0"}\n`;
  const r = await run([req, note], 1000);
  assert.equal(r.passed, '');
  assert.deepEqual(r.replies.map((m) => (m as { id: string; error: { code: number } }).id), ['abc']);
  assert.equal((r.replies[0] as { error: { code: number } }).error.code, -32600);
});
