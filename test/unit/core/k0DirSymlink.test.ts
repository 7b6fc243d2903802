// `.k0maru` itself as a symlink, as a cloned repository can carry it (`.k0maru -> /tmp/x`, `-> ../../elsewhere`):
// nothing is ever written through it — no index, lock, journal, cache or offload file — and every command says
// PATH_OUTSIDE_VAULT with the fix. A link to a folder inside the project (`.k0maru -> ./memory`) follows the notes'
// symlink policy: allowed when the target is a folder the walk could list (not hidden, not ignored). Real temp
// folders, the real CLI (in-process), the real MCP server over stdio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from '../../helpers/cli';
import { connectStdio, textOf } from '../../helpers/mcpClient';
import { pathsForProject, locateVault } from '../../../src/core/vault/paths';

interface Setup {
  root: string;
  outside: string;
  cleanup(): void;
}

/** A project whose `.k0maru` is a symlink to a folder outside it that already looks like a vault. */
function linkedOutside(relative: boolean): Setup {
  const base = mkdtempSync(join(tmpdir(), 'k0-k0link-'));
  const root = join(base, 'a', 'b', 'project');
  const outside = join(base, 'elsewhere');
  mkdirSync(root, { recursive: true });
  mkdirSync(join(outside, 'wiki'), { recursive: true });
  writeFileSync(join(outside, 'wiki', 'note.md'), '# Note\n\nabout caching\n');
  spawnSync('git', ['init', '-q'], { cwd: root });
  symlinkSync(relative ? '../../../elsewhere' : outside, join(root, '.k0maru'));
  return { root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

const listing = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).sort();

for (const relative of [false, true]) {
  const form = relative ? '`.k0maru -> ../../../elsewhere`' : '`.k0maru -> /abs/elsewhere`';

  test(`${form}: CLI scan, recall and flush refuse with PATH_OUTSIDE_VAULT and write nothing through it`, async () => {
    const s = linkedOutside(relative);
    try {
      const before = listing(s.outside);
      for (const args of [['scan'], ['recall', 'caching', '--mode', 'bm25'], ['flush', '--title', 'Decision', '--category', 'decision'], ['init']]) {
        const r = await runCliCaptured(args, { cwd: s.root, env: { HOME: s.root }, stdin: 'the decision text' });
        assert.notEqual(r.code, 0, `${args[0]} must refuse`);
        assert.match(r.err, /PATH_OUTSIDE_VAULT/, `${args[0]}: ${r.err}`);
        assert.match(r.err, /symlink/, `${args[0]} says what is wrong`);
        assert.match(r.err, /mkdir/, `${args[0]} says how to fix it`);
      }
      assert.deepEqual(listing(s.outside), before, 'nothing was written through the link');
    } finally {
      s.cleanup();
    }
  });
}

test('`.k0maru` linked outside: the MCP server starts, answers tools/list, and every tool call is a PATH_OUTSIDE_VAULT error; nothing written', async () => {
  const s = linkedOutside(false);
  const before = listing(s.outside);
  const c = await connectStdio(['--vault', s.root], { cwd: s.root, env: { HOME: s.root } });
  try {
    assert.ok((await c.client.listTools()).tools.length > 0);
    for (const [name, args] of [
      ['recall_memory', { query: 'caching', mode: 'bm25' }],
      ['get_project_loadout', {}],
      ['flush_session', { title: 'Decision', content: 'text', category: 'decision' }],
    ] as const) {
      const r = await c.client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, `${name}: ${textOf(r)}`);
      assert.match(textOf(r), /^PATH_OUTSIDE_VAULT: /, name);
    }
  } finally {
    await c.close();
  }
  try {
    assert.deepEqual(listing(s.outside), before, 'nothing was written through the link');
  } finally {
    s.cleanup();
  }
});

test('a dangling `.k0maru` symlink is refused too (a mkdir through it would create the target)', () => {
  const base = mkdtempSync(join(tmpdir(), 'k0-k0link-'));
  try {
    symlinkSync(join(base, 'not-there'), join(base, '.k0maru'));
    assert.throws(() => pathsForProject(base), (e: { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT');
    assert.throws(() => locateVault({ cwd: base, env: {} }), (e: { code?: string; message: string }) => e.code === 'PATH_OUTSIDE_VAULT' || /no \.k0maru/.test(e.message));
    assert.ok(!existsSync(join(base, 'not-there')));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('`.k0maru/refs`, `.k0maru/cache` or `.k0maru/wiki` linked outside the project: refused the same way', () => {
  for (const sub of ['refs', 'cache', 'wiki']) {
    const base = mkdtempSync(join(tmpdir(), 'k0-k0link-'));
    try {
      const root = join(base, 'project');
      mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
      mkdirSync(join(base, 'elsewhere'));
      rmSync(join(root, '.k0maru', sub), { recursive: true, force: true });
      symlinkSync(join(base, 'elsewhere'), join(root, '.k0maru', sub));
      assert.throws(() => pathsForProject(root), (e: { code?: string; message: string }) => e.code === 'PATH_OUTSIDE_VAULT' && e.message.includes(sub), sub);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
});

test('`.k0maru -> ./memory` (a folder inside the project) is allowed: scan, recall and flush work, everything lands in memory/', async () => {
  const root = mkdtempSync(join(tmpdir(), 'k0-k0link-in-'));
  try {
    spawnSync('git', ['init', '-q'], { cwd: root });
    mkdirSync(join(root, 'memory', 'wiki'), { recursive: true });
    writeFileSync(join(root, 'memory', 'wiki', 'note.md'), '# Note\n\nabout caching zeppelins\n');
    symlinkSync('./memory', join(root, '.k0maru'));
    const scan = await runCliCaptured(['scan'], { cwd: root, env: { HOME: root } });
    assert.equal(scan.code, 0, scan.err);
    const recall = await runCliCaptured(['recall', 'zeppelins', '--mode', 'bm25'], { cwd: root, env: { HOME: root } });
    assert.equal(recall.code, 0, recall.err);
    assert.match(recall.out, /note\.md/);
    const flush = await runCliCaptured(['flush', '--title', 'Keep memory inside', '--category', 'decision'], { cwd: root, env: { HOME: root }, stdin: 'the decision text' });
    assert.equal(flush.code, 0, flush.err);
    assert.ok(existsSync(join(root, 'memory', 'index.db')));
    assert.ok(listing(join(root, 'memory', 'wiki')).some((f) => /keep-memory-inside/.test(f)), listing(join(root, 'memory', 'wiki')).join(' '));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('`.k0maru` linked to the project itself or into a hidden folder of it is refused (the notes policy refuses those targets too)', () => {
  for (const target of ['.', './.hidden-store', './node_modules/x']) {
    const root = mkdtempSync(join(tmpdir(), 'k0-k0link-in-'));
    try {
      mkdirSync(join(root, target), { recursive: true });
      symlinkSync(target, join(root, '.k0maru'));
      assert.throws(() => pathsForProject(root), (e: { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT', target);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
});
