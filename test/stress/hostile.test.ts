// The hostile-vault set of the attack report, against the built CLI and MCP server: a symlink to a FIFO, symlinks
// (file and folder) that point outside the vault, deep folder chains, a huge note and a binary one, bad YAML, a
// directory named like a note. Each must be answered in bounded time without serving anything from outside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMcp, isInternal, record, round, runCli, size } from './lib';

const HANG_MS = 30_000;
const figures: Record<string, unknown> = {};

function project(): { root: string; notes: string } {
  const root = mkdtempSync(join(tmpdir(), 'k0stress-hostile-'));
  spawnSync('git', ['init', '-q'], { cwd: root });
  const notes = join(root, '.k0maru', 'wiki');
  mkdirSync(notes, { recursive: true });
  writeFileSync(join(notes, 'plain.md'), '# Plain\n\nA plain note about caching.\n');
  return { root, notes };
}

test.after(() => record('hostile', figures));

test('a symlink to a FIFO (and a FIFO named x.md): scan and the MCP server answer, and the server still honours SIGTERM', async () => {
  const p = project();
  spawnSync('mkfifo', [join(p.notes, 'pipe')]);
  spawnSync('mkfifo', [join(p.notes, 'raw-fifo.md')]);
  symlinkSync('pipe', join(p.notes, 'fifo-link.md'));
  const scan = await runCli(p.root, ['scan', '--json'], { timeoutMs: HANG_MS });
  figures.fifoScanMs = round(scan.ms);
  assert.ok(!scan.timedOut, 'scan hung on the FIFO');
  assert.equal(scan.code, 0, scan.err);
  const s = await connectMcp(p.root);
  const pid = s.pid();
  try {
    const r = await s.client.callTool({ name: 'recall_memory', arguments: { query: 'caching', mode: 'bm25' } }, undefined, { timeout: HANG_MS });
    assert.ok(!isInternal(r), JSON.stringify(r));
  } finally {
    // SIGTERM must end the server even after it met the FIFO.
    assert.ok(pid);
    process.kill(pid!, 'SIGTERM');
    const t0 = Date.now();
    let alive = true;
    while (alive && Date.now() - t0 < 10_000) {
      try {
        process.kill(pid!, 0);
        await new Promise((r) => setTimeout(r, 50));
      } catch {
        alive = false;
      }
    }
    figures.fifoSigtermExitMs = alive ? null : Date.now() - t0;
    await s.close().catch(() => {});
    assert.ok(!alive, 'the MCP server ignored SIGTERM');
  }
});

test('symlinks to /etc/passwd and to /etc are never indexed or served (CLI and MCP)', async () => {
  const p = project();
  symlinkSync('/etc/passwd', join(p.notes, 'x.md'));
  symlinkSync('/etc', join(p.notes, 'etc'));
  const scan = await runCli(p.root, ['scan', '--json'], { timeoutMs: HANG_MS });
  assert.equal(scan.code, 0, scan.err);
  const recall = await runCli(p.root, ['recall', 'root bin bash', '--json', '--mode', 'bm25'], { timeoutMs: HANG_MS });
  const leaks = (t: string) => /root:x:0:0|\/bin\/bash|"x\.md"|etc\//.test(t);
  figures.outsideSymlinkLeakCli = leaks(recall.out);
  assert.ok(!leaks(recall.out), `recall served a file from outside the vault:\n${recall.out.slice(0, 800)}`);
  const s = await connectMcp(p.root);
  try {
    const r = await s.client.callTool({ name: 'recall_memory', arguments: { query: 'root bin bash', mode: 'bm25' } });
    const text = JSON.stringify(r);
    figures.outsideSymlinkLeakMcp = leaks(text);
    assert.ok(!leaks(text), `MCP recall served a file from outside the vault: ${text.slice(0, 800)}`);
  } finally {
    await s.close();
  }
});

test(`a folder chain ${size(1000, 500)} deep: scans finish, a clean rescan is fast (linear, or a depth limit with a warning)`, async () => {
  const p = project();
  const depth = size(1000, 500);
  let dir = p.notes;
  for (let i = 0; i < depth; i++) dir = join(dir, 'd');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bottom.md'), '# Bottom\n\nAt the bottom of the chain.\n');
  const first = await runCli(p.root, ['scan', '--json'], { timeoutMs: 120_000 });
  assert.ok(!first.timedOut, 'first scan hung');
  assert.equal(first.code, 0, first.err);
  const again = await runCli(p.root, ['scan', '--json'], { timeoutMs: 120_000 });
  // The same clean rescan of a flat two-note vault: what opening the index and starting the CLI cost anyway.
  const flat = project();
  await runCli(flat.root, ['scan'], { timeoutMs: 60_000 });
  const base = await runCli(flat.root, ['scan', '--json'], { timeoutMs: 60_000 });
  figures.deepFolders = { depth, firstScanMs: round(first.ms), cleanRescanMs: round(again.ms), flatCleanRescanMs: round(base.ms) };
  assert.equal(again.code, 0, again.err);
  assert.ok(again.ms - base.ms <= 3_000, `a clean rescan at depth ${depth} took ${Math.round(again.ms)} ms (flat vault ${Math.round(base.ms)} ms)`);
});

test('a 600,000-character note, a binary .md, bad YAML and a directory named x.md: scan warns, hybrid recall still answers', async () => {
  const p = project();
  writeFileSync(join(p.notes, 'huge.md'), `# Huge\n\n${'caching lorem ipsum dolor sit amet '.repeat(600_000 / 34)}`);
  writeFileSync(join(p.notes, 'huge-line.md'), `# One line\n\n${'x'.repeat(600_000)}\n`);
  const bin = Buffer.alloc(200_000);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 2654435761) >>> 24;
  writeFileSync(join(p.notes, 'binary.md'), bin);
  writeFileSync(join(p.notes, 'bad-yaml.md'), '---\n: : bad\n  - [\n---\n# Bad YAML\n\ncaching again\n');
  mkdirSync(join(p.notes, 'folder.md'));
  writeFileSync(join(p.notes, 'folder.md', 'inner.md'), '# Inner\n');
  const scan = await runCli(p.root, ['scan', '--json'], { timeoutMs: 120_000 });
  assert.ok(!scan.timedOut, 'scan hung');
  assert.equal(scan.code, 0, scan.err);
  const report = JSON.parse(scan.out) as { warnings: { path: string }[]; skipped: unknown[] };
  figures.hostileFilesWarnings = report.warnings.length + report.skipped.length;
  const s = await connectMcp(p.root);
  try {
    const t0 = performance.now();
    const r = await s.client.callTool({ name: 'recall_memory', arguments: { query: 'caching lorem', mode: 'hybrid' } }, undefined, { timeout: 120_000 });
    figures.hugeNoteHybridRecallMs = round(performance.now() - t0);
    figures.hugeNoteHybridRecallError = (r as { isError?: boolean }).isError ? JSON.stringify(r).slice(0, 300) : null;
    assert.notEqual((r as { isError?: boolean }).isError, true, JSON.stringify(r).slice(0, 600));
  } finally {
    await s.close();
  }
});

test('.k0maru itself a symlink to a folder outside the project (absolute and ../..): CLI scan, flush and the MCP server refuse, nothing is written through it', async () => {
  const base = mkdtempSync(join(tmpdir(), 'k0stress-k0link-'));
  const root = join(base, 'a', 'b', 'project');
  const outside = join(base, 'elsewhere');
  mkdirSync(root, { recursive: true });
  mkdirSync(join(outside, 'wiki'), { recursive: true });
  writeFileSync(join(outside, 'wiki', 'note.md'), '# Note\n\nabout caching\n');
  writeFileSync(join(root, 'content.md'), 'a decision\n');
  spawnSync('git', ['init', '-q'], { cwd: root });
  const listing = () => (readdirSync(outside, { recursive: true }) as string[]).sort();
  const before = listing();
  const refused: Record<string, boolean> = {};
  for (const [form, target] of [['absolute', outside], ['relative', '../../../elsewhere']] as const) {
    rmSync(join(root, '.k0maru'), { force: true });
    symlinkSync(target, join(root, '.k0maru'));
    for (const args of [['scan'], ['flush', '--title', 'Decision', '--category', 'decision', '--content-file', 'content.md']]) {
      const r = await runCli(root, args, { timeoutMs: HANG_MS });
      refused[`${form} ${args[0]}`] = r.code !== 0 && /PATH_OUTSIDE_VAULT/.test(r.err);
    }
  }
  const s = await connectMcp(root);
  try {
    const r = await s.client.callTool({ name: 'recall_memory', arguments: { query: 'caching', mode: 'bm25' } });
    refused['mcp recall_memory'] = (r as { isError?: boolean }).isError === true && /PATH_OUTSIDE_VAULT/.test(JSON.stringify(r));
  } finally {
    await s.close();
  }
  const writtenThrough = JSON.stringify(listing()) !== JSON.stringify(before);
  figures.k0DirSymlinkOutside = { refused: Object.values(refused).filter(Boolean).length, of: Object.keys(refused).length, writtenThrough };
  rmSync(base, { recursive: true, force: true });
  assert.deepEqual(Object.entries(refused).filter(([, ok]) => !ok), [], 'every command refuses');
  assert.equal(writtenThrough, false, 'nothing was written through the link');
});
