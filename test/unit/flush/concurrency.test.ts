import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { read, snapshot, tempProject } from './helpers';

const WORKER = join(__dirname, 'flushWorker.ts');

interface Line {
  worker: string;
  i: number;
  outcome: string;
  path: string;
}

function runWorker(args: string[]): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`worker exited ${code}: ${err}`));
      else resolve(out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line));
    });
  });
}

async function race(workers: number, count: number, title: string, category: string, extra?: (root: string) => Promise<Line>[]) {
  const p = tempProject('k0maru-default');
  const start = join(p.projectRoot, 'go');
  const runs: Promise<Line | Line[]>[] = Array.from({ length: workers }, (_, w) => runWorker([p.projectRoot, start, String(w), String(count), title, category]));
  // Let every process load and reach the barrier, then release them together (CLI runs start loading now and
  // land in the middle of the workers' flushes).
  await new Promise((r) => setTimeout(r, 1500));
  writeFileSync(start, '');
  if (extra) runs.push(...extra(p.projectRoot));
  const lines = (await Promise.all(runs)).flat();
  return { p, lines };
}

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'bin.ts');

/** `k0maru flush` as a real process, content on stdin. */
function runCliFlush(projectRoot: string, title: string, content: string): Promise<Line> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'flush', '--json', '--vault', projectRoot, '--title', title, '--date', '2026-11-30'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve({ ...(JSON.parse(out) as Line), worker: 'cli', i: 0 }) : reject(new Error(`cli exited ${code}: ${err}`))));
    child.stdin.end(content);
  });
}

test('four processes and two CLI runs flushing the same title at once: every note lands in its own complete file', async () => {
  const { p, lines: workerLines } = await race(4, 8, 'Same title for everyone', 'log', (root) => [
    runCliFlush(root, 'Same title for everyone', 'from cli A\n' + 'filler line\n'.repeat(200)),
    runCliFlush(root, 'Same title for everyone', 'from cli B\n' + 'filler line\n'.repeat(200)),
  ]);
  const cliLines = workerLines.filter((l) => l.worker === 'cli');
  assert.equal(cliLines.length, 2);
  const cliTexts = cliLines.map((l) => read(p, l.path));
  assert.ok(cliTexts.some((t) => t.includes('from cli A')) && cliTexts.some((t) => t.includes('from cli B')));
  const lines = workerLines.filter((l) => l.worker !== 'cli');
  assert.equal(lines.length, 32);
  assert.ok(lines.every((l) => l.outcome === 'created' || l.outcome === 'versioned'));
  const paths = lines.map((l) => l.path);
  assert.equal(new Set(paths).size, 32, 'no two flushes share a file');
  for (const l of lines) {
    const text = read(p, l.path);
    assert.ok(text.includes(`written by worker ${l.worker}, flush ${l.i}\n`), `${l.path} holds its own content`);
    assert.ok(text.endsWith('filler line\n'), `${l.path} is complete`);
  }
  const files = [...snapshot(p.notesRoot).keys()];
  assert.ok(!files.some((f) => f.endsWith('.tmp')), 'no temp file left behind');
  assert.ok(!existsSync(join(p.k0Dir, 'flush.lock')), 'lock released');
  assert.equal(readdirSync(join(p.notesRoot, '01_AI_Logs')).length, 35, '32 + 2 new notes + the fixture log');
  assert.equal(new Set([...paths, ...cliLines.map((l) => l.path)]).size, 34);
});

test('two processes recording different decisions at once never take the same ADR number', async () => {
  const { p, lines } = await race(2, 10, '*', 'decision');
  const numbers = lines.map((l) => /adr-(\d{3})-/.exec(l.path)?.[1]);
  assert.equal(new Set(numbers).size, 20);
  assert.deepEqual(
    [...numbers].sort(),
    Array.from({ length: 20 }, (_, k) => String(k + 2).padStart(3, '0')),
    'numbers 002..021 continue the fixture ADR 001 without gaps',
  );
  assert.ok(lines.every((l) => read(p, l.path).includes(`written by worker ${l.worker}, flush ${l.i}`)));
});

test('a lock left by a killed process is broken; a live holder makes the flush give up with WRITE_CONFLICT', async () => {
  const { mkdirSync } = await import('node:fs');
  const { hostname } = await import('node:os');
  const { flushNote } = await import('../../../src/core/flush');
  const { spawnSync } = await import('node:child_process');
  const p = tempProject();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  const lock = join(p.k0Dir, 'flush.lock');
  mkdirSync(lock);
  writeFileSync(join(lock, 'owner'), JSON.stringify({ pid: Number(dead), host: hostname(), at: Date.now() }));
  const r = await flushNote(p, { title: 'After a crash', content: 'x', date: '2026-11-30' });
  assert.equal(r.outcome, 'created');
  assert.ok(!existsSync(lock));

  mkdirSync(lock);
  writeFileSync(join(lock, 'owner'), JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() }));
  const before = snapshot(p.notesRoot);
  await assert.rejects(flushNote(p, { title: 'Blocked', content: 'x', date: '2026-11-30' }, { lockTimeoutMs: 100 }), (e: { code?: string }) => e.code === 'WRITE_CONFLICT');
  assert.deepEqual(snapshot(p.notesRoot), before);
});
