import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectStdio } from '../../helpers/mcpClient';
import { tempVault } from '../../helpers/tempVault';

function cliFlush(root: string, title: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `require('./src/cli/main.ts').runCli(['flush', '--title', ${JSON.stringify(title)}, '--vault', ${JSON.stringify(root)}], { stdout: process.stdout, stderr: process.stderr, stdin: require('node:stream').Readable.from(['from the CLI']), cwd: process.cwd(), env: process.env }).then((c) => process.exit(c))`], { stdio: 'ignore' });
    child.on('close', resolve);
  });
}

function notes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && e.name.endsWith('.md')).map((e) => join(e.parentPath, e.name));
}

test('two MCP servers and the CLI flushing into one vault at once lose no note and leave no half-written file', async () => {
  const v = tempVault({ '00_Meta/vision.md': '# Vision\nTest.\n' });
  const [a, b] = await Promise.all([connectStdio(['--vault', v.root]), connectStdio(['--vault', v.root])]);
  try {
    const N = 6;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < N; i++) {
      for (const [name, c] of [['a', a], ['b', b]] as const) {
        calls.push(c.client.callTool({ name: 'flush_session', arguments: { title: `Shared title ${i % 2}`, content: `from server ${name} call ${i}` } }));
      }
    }
    const cli = [cliFlush(v.root, 'Shared title 0'), cliFlush(v.root, 'Shared title 1')];
    const results = (await Promise.all(calls)) as { isError?: boolean; structuredContent?: { path: string } }[];
    const cliCodes = await Promise.all(cli);
    assert.deepEqual(cliCodes, [0, 0]);
    for (const r of results) assert.notEqual(r.isError, true, JSON.stringify(r));
    const paths = new Set(results.map((r) => r.structuredContent!.path));
    assert.equal(paths.size, 2 * N, 'every server flush got its own file');
    const all = notes(v.notes).filter((p) => !p.endsWith('vision.md'));
    assert.equal(all.length, 2 * N + 2, all.join('\n'));
    for (const p of all) {
      const text = readFileSync(p, 'utf8');
      assert.match(text, /^---\n[\s\S]*?\n---\n/, `${p} has complete frontmatter`);
      assert.match(text, /from (server [ab] call \d+|the CLI)/, `${p} has its whole body`);
    }
    const leftovers = readdirSync(v.notes, { recursive: true }).map(String).filter((f) => f.endsWith('.tmp'));
    assert.deepEqual(leftovers, []);
  } finally {
    await Promise.all([a.close(), b.close()]);
    v.cleanup();
  }
});
