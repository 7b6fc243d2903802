import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { openProject } from '../../../src/core/project';
import { tempVault } from '../../helpers/tempVault';

const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`n/note-${i}.md`, `---\ntitle: Note ${i}\n---\n# Note ${i}\nBody ${i} links [[note-${(i + 1) % n}]] word${i}\n`]));

test('a deleted index is rebuilt from the Markdown', async () => {
  const v = tempVault(many(5));
  try {
    let p = openProject({ vault: v.root });
    await p.scan();
    p.close();
    rmSync(join(v.root, '.k0maru', 'index.db'));
    p = openProject({ vault: v.root });
    const r = await p.scan();
    assert.equal(r.added, 5);
    p.close();
  } finally {
    v.cleanup();
  }
});

test('a corrupt index is moved aside, rebuilt, and a warning is logged', async () => {
  const v = tempVault(many(5));
  try {
    writeFileSync(join(v.root, '.k0maru', 'index.db'), 'this is not a database '.repeat(300));
    const logs: string[] = [];
    const p = openProject({ vault: v.root, log: (level, m) => logs.push(`${level}: ${m}`) });
    const r = await p.scan();
    p.close();
    assert.equal(r.added, 5);
    assert.ok(logs.some((l) => /^warn: .*unreadable.*rebuilding/.test(l)), logs.join('\n'));
    assert.ok(readdirSync(join(v.root, '.k0maru')).some((f) => f.startsWith('index.db.corrupt-')));
  } finally {
    v.cleanup();
  }
});

test('a stale .lock left by a killed process is recovered', async () => {
  const v = tempVault(many(3));
  try {
    let p = openProject({ vault: v.root });
    await p.scan();
    p.close();
    const lock = join(v.root, '.k0maru', 'index.db.lock');
    mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const logs: string[] = [];
    p = openProject({ vault: v.root, log: (level, m) => logs.push(`${level}: ${m}`) });
    const r = await p.scan();
    p.close();
    assert.equal(r.unchanged, 3);
    assert.equal(existsSync(lock), false);
    assert.ok(logs.some((l) => /stale index lock/.test(l)));
  } finally {
    v.cleanup();
  }
});

function scanInChild(root: string): Promise<{ code: number | null; out: string; err: string }> {
  const script = `const { openProject } = require(${JSON.stringify(join(process.cwd(), 'src/core/project.ts'))});
    const p = openProject({ vault: ${JSON.stringify(root)} });
    p.scan().then((r) => { console.log(JSON.stringify({ total: r.total })); p.close(); }, (e) => { console.error(e.code, e.message); process.exit(1); });`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: process.cwd() });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('two processes scanning the same vault at once both finish and the index is consistent', async () => {
  const v = tempVault(many(900));
  try {
    const [a, b] = await Promise.all([scanInChild(v.root), scanInChild(v.root)]);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    assert.equal(JSON.parse(a.out).total, 900);
    assert.equal(JSON.parse(b.out).total, 900);
    const p = openProject({ vault: v.root });
    try {
      assert.equal(Number(p.index.get('SELECT COUNT(*) AS n FROM documents')!.n), 900);
      assert.equal(Number(p.index.get('SELECT COUNT(*) AS n FROM chunks')!.n), Number(p.index.get("SELECT COUNT(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'body'")!.n));
      assert.equal(String(p.index.get('PRAGMA integrity_check')!.integrity_check), 'ok');
      const again = await p.scan();
      assert.equal(again.unchanged, 900);
    } finally {
      p.close();
    }
  } finally {
    v.cleanup();
  }
});

test('a scan killed mid-write leaves an index the next scan repairs', async () => {
  const v = tempVault(many(3000));
  try {
    const script = `const { openProject } = require(${JSON.stringify(join(process.cwd(), 'src/core/project.ts'))});
      const p = openProject({ vault: ${JSON.stringify(v.root)} }); p.scan({ onProgress: (x) => { if (x.done > 1200) console.log('mid'); } });`;
    await new Promise<void>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', script]);
      child.stdout.once('data', () => child.kill('SIGKILL'));
      child.on('close', () => resolve());
    });
    // The killed writer may have left its lock directory: make it look old as it would after a while.
    const lock = join(v.root, '.k0maru', 'index.db.lock');
    if (existsSync(lock)) utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const p = openProject({ vault: v.root });
    try {
      const r = await p.scan();
      assert.equal(r.total, 3000);
      assert.equal(String(p.index.get('PRAGMA integrity_check')!.integrity_check), 'ok');
      assert.equal(Number(p.index.get('SELECT COUNT(*) AS n FROM documents')!.n), 3000);
    } finally {
      p.close();
    }
  } finally {
    v.cleanup();
  }
});
