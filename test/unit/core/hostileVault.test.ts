import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openProject, type Project } from '../../../src/core/project';
import type { ScanReport } from '../../../src/core/scan/scanner';
import { loadVaultRules } from '../../../src/core/guard/ruleStore';
import { locateVault } from '../../../src/core/vault/paths';
import { readNoteForPage } from '../../../src/core/console/note';
import { findCategoryTemplate } from '../../../src/core/conventions/heuristics';
import { REPO } from '../../helpers/build';
import { tempVault, type TempVault } from '../../helpers/tempVault';

/**
 * Hostile vaults (issue 13 defects 4, 5, 6, 12): FIFOs behind symlinks, deep folder chains, symlinks leading out
 * of the project, folders named like notes. Real FIFOs (mkfifo), real symlinks, real deep trees in temp dirs.
 */

const NOTE = (title: string, body = 'Some text.') => `---\ntitle: ${title}\n---\n# ${title}\n${body}\n`;
const TSX = pathToFileURL(join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

const indexedPaths = (p: Project) => p.index.all('SELECT path FROM documents ORDER BY path').map((x) => String(x.path));

/** Opens the project of `v`, scans it once and hands the project, the report and the indexed paths to `check`. */
async function afterScan(v: TempVault, check: (p: Project, r: ScanReport, paths: string[]) => void | Promise<void>): Promise<void> {
  const p = openProject({ vault: v.root });
  try {
    const r = await p.scan();
    await check(p, r, indexedPaths(p));
  } finally {
    p.close();
  }
}

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  assert.equal(r.status, 0, `mkfifo failed: ${r.stderr}`);
}

/**
 * Runs a scan (and a guard rule load) of `root` in a child process: a scan that blocks on a FIFO blocks its whole
 * thread, so only another process can notice and end it. Resolves with the child's JSON or rejects at the deadline.
 */
function scanInChild(root: string, deadlineMs = 60_000): Promise<{ skipped: { path: string; reason: string }[]; paths: string[]; rules: number }> {
  const script = `
    const { openProject } = require(${JSON.stringify(join(REPO, 'src/core/project.ts'))});
    const { loadVaultRules } = require(${JSON.stringify(join(REPO, 'src/core/guard/ruleStore.ts'))});
    (async () => {
      const p = openProject({ vault: ${JSON.stringify(root)} });
      const r = await p.scan();
      const paths = p.index.all('SELECT path FROM documents ORDER BY path').map((x) => String(x.path));
      const rules = (await loadVaultRules(p.paths)).adrs.length;
      p.close();
      process.stdout.write(JSON.stringify({ skipped: r.skipped, paths, rules }));
    })().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(2); });`;
  return runChild(script, deadlineMs).then((out) => JSON.parse(out));
}

/** Runs `script` in a child process (see scanInChild); resolves with its stdout or rejects at the deadline. */
function runChild(script: string, deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, '-e', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not finish within ${deadlineMs} ms (hung)`));
    }, deadlineMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`child exited ${code}: ${err}`));
    });
  });
}

test('defect 4: a FIFO, and a symlink to a FIFO, are never opened: scan and guard finish and report them', async () => {
  const v = tempVault({ 'ok.md': NOTE('Ok'), 'adr.md': NOTE('ADR', '## Rules\n- deny: `eval(`\n') });
  try {
    mkfifo(join(v.root, 'pipe'));
    symlinkSync(join(v.root, 'pipe'), join(v.notes, 'linked-fifo.md'));
    mkfifo(join(v.notes, 'direct-fifo.md'));
    const r = await scanInChild(v.root);
    assert.deepEqual(r.paths, ['adr.md', 'ok.md']);
    assert.equal(r.rules, 1, 'the guard still reads the real ADR');
    const reasons = Object.fromEntries(r.skipped.map((s) => [s.path, s.reason]));
    assert.match(reasons['linked-fifo.md'] ?? '', /FIFO/, JSON.stringify(r.skipped));
    assert.match(reasons['direct-fifo.md'] ?? '', /FIFO/, JSON.stringify(r.skipped));
  } finally {
    v.cleanup();
  }
});

test('defect 4: FIFOs named AGENTS.md, package.json, README.md or config.json never block loadout, conventions or a scan', async () => {
  const v = tempVault({ 'ok.md': NOTE('Ok') });
  try {
    for (const name of ['AGENTS.md', 'CONVENTIONS.md', 'package.json', 'README.md']) mkfifo(join(v.root, name));
    const script = `
      const { openProject } = require(${JSON.stringify(join(REPO, 'src/core/project.ts'))});
      const { getProjectLoadout } = require(${JSON.stringify(join(REPO, 'src/core/loadout/loadout.ts'))});
      const { sniffConventionsFor } = require(${JSON.stringify(join(REPO, 'src/core/conventions/sniff.ts'))});
      const { readConfig } = require(${JSON.stringify(join(REPO, 'src/core/vault/paths.ts'))});
      (async () => {
        const p = openProject({ vault: ${JSON.stringify(v.root)} });
        await p.scan();
        const l = await getProjectLoadout(p);
        const c = sniffConventionsFor(p.paths, ['decision']);
        p.close();
        require('node:child_process').spawnSync('mkfifo', [${JSON.stringify(join(v.root, '.k0maru', 'config.json'))}]);
        let code = 'none';
        try { readConfig(${JSON.stringify(join(v.root, '.k0maru'))}); } catch (e) { code = e.code; }
        process.stdout.write(JSON.stringify({ loadout: typeof l.markdown === 'string' || typeof l === 'object', sniffed: !!c, configError: code }));
      })().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(2); });`;
    const out = await runChild(script, 60_000);
    assert.deepEqual(JSON.parse(out), { loadout: true, sniffed: true, configError: 'INVALID_ARGUMENT' });
  } finally {
    v.cleanup();
  }
});

test('defect 4: a note swapped for a FIFO after indexing is refused by the readers (console page), never waited on', async () => {
  const v = tempVault({ 'swap.md': NOTE('Swap') });
  const p = openProject({ vault: v.root });
  try {
    await p.scan();
    rmSync(join(v.notes, 'swap.md'));
    mkfifo(join(v.notes, 'swap.md'));
    assert.throws(() => readNoteForPage(p, 'swap.md'), /not a regular file/);
  } finally {
    p.close();
    v.cleanup();
  }
});

test('defect 5: a 1,000-deep folder chain scans in linear time; folders past the depth limit are reported', async () => {
  const v = tempVault({ 'top.md': NOTE('Top') });
  try {
    let rel = '';
    for (let i = 1; i <= 1000; i++) {
      rel += (rel ? '/' : '') + 'd';
      if (i === 50 || i === 120 || i === 500) {
        mkdirSync(join(v.notes, rel), { recursive: true });
        writeFileSync(join(v.notes, rel, `n${i}.md`), NOTE(`Level ${i}`));
      }
    }
    mkdirSync(join(v.notes, rel), { recursive: true });
    const p = openProject({ vault: v.root });
    try {
      const t0 = performance.now();
      const first = await p.scan();
      const clean = await p.scan();
      const ms = performance.now() - t0;
      const paths = indexedPaths(p);
      assert.ok(paths.includes(`${'d/'.repeat(50)}n50.md`) && paths.includes(`${'d/'.repeat(120)}n120.md`), paths.join(', '));
      assert.equal(paths.length, 3, 'the level-500 note is past the limit');
      assert.ok(first.skipped.some((s) => /deeper than 128 levels/.test(s.reason)), JSON.stringify(first.skipped));
      assert.equal(clean.unchanged, 3);
      // Before the fix: 46 s per clean rescan at this depth (realpath per level). A deadline, not a benchmark.
      assert.ok(ms < 10_000, `two scans took ${Math.round(ms)} ms`);
    } finally {
      p.close();
    }
  } finally {
    v.cleanup();
  }
});

test('defect 6: symlinks leading outside the project are skipped with a reason; inside the project they are followed', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'k0-outside-'));
  writeFileSync(join(outside, 'secret.md'), NOTE('Secret', 'root bin bash'));
  mkdirSync(join(outside, 'etc'));
  writeFileSync(join(outside, 'etc', 'passwd.md'), NOTE('Passwd', 'root bin bash'));
  const v = tempVault({ 'ok.md': NOTE('Ok') });
  try {
    symlinkSync('/etc/passwd', join(v.notes, 'x.md'));
    symlinkSync(join(outside, 'secret.md'), join(v.notes, 'secret.md'));
    symlinkSync(join(outside, 'etc'), join(v.notes, 'etc'));
    writeFileSync(join(v.root, 'README.md'), NOTE('Readme', 'project readme'));
    symlinkSync(join(v.root, 'README.md'), join(v.notes, 'readme-link.md'));
    await afterScan(v, async (p, r, paths) => {
      assert.deepEqual(paths, ['ok.md', 'readme-link.md']);
      const reasons = Object.fromEntries(r.skipped.map((s) => [s.path, s.reason]));
      assert.match(reasons['x.md'] ?? '', /outside the project/);
      assert.match(reasons['secret.md'] ?? '', /outside the project/);
      assert.match(reasons['etc'] ?? '', /outside the project/);
      assert.equal(Number(p.index.get("SELECT COUNT(*) AS n FROM chunks_fts WHERE chunks_fts MATCH 'bash'")!.n), 0);
      // The guard reads exactly the same notes.
      const rules = await loadVaultRules(locateVault({ vault: v.root }));
      assert.equal(rules.adrs.length, 0);
    });
  } finally {
    v.cleanup();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('defect 6: symlinks into .git/, dot-files or node_modules stay unfollowed though inside the project', async () => {
  const v = tempVault({ 'ok.md': NOTE('Ok') });
  try {
    mkdirSync(join(v.root, '.git'));
    writeFileSync(join(v.root, '.git', 'config'), '[remote "origin"]\n\turl = https://user:s3cr3ttoken@example.com/x.git\n');
    writeFileSync(join(v.root, '.env'), 'TOKEN=s3cr3ttoken\n');
    mkdirSync(join(v.root, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(v.root, 'node_modules', 'pkg', 'README.md'), '# pkg s3cr3ttoken\n');
    symlinkSync(join(v.root, '.git', 'config'), join(v.notes, 'git.md'));
    symlinkSync(join(v.root, '.env'), join(v.notes, 'env.md'));
    symlinkSync(join(v.root, 'node_modules'), join(v.notes, 'deps'));
    await afterScan(v, (p, r, paths) => {
      assert.deepEqual(paths, ['ok.md']);
      const reasons = Object.fromEntries(r.skipped.map((s) => [s.path, s.reason]));
      for (const k of ['git.md', 'env.md', 'deps']) assert.match(reasons[k] ?? '', /hidden or ignored/, `${k}: ${JSON.stringify(r.skipped)}`);
      // A note swapped for such a link after indexing is refused by the readers too.
      rmSync(join(v.notes, 'ok.md'));
      symlinkSync(join(v.root, '.git', 'config'), join(v.notes, 'ok.md'));
      assert.throws(() => readNoteForPage(p, 'ok.md'), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT');
    });
  } finally {
    v.cleanup();
  }
});

test('defect 6: a note that becomes a symlink out of the project after indexing is refused by the page reader', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'k0-outside-'));
  writeFileSync(join(outside, 'secret.md'), '# secret\n');
  const v = tempVault({ 'n.md': NOTE('N') });
  const p = openProject({ vault: v.root });
  try {
    await p.scan();
    rmSync(join(v.notes, 'n.md'));
    symlinkSync(join(outside, 'secret.md'), join(v.notes, 'n.md'));
    assert.throws(() => readNoteForPage(p, 'n.md'), (e: Error & { code?: string }) => e.code === 'PATH_OUTSIDE_VAULT');
  } finally {
    p.close();
    v.cleanup();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('defect 12: a folder named x.md is a folder — walked, its notes indexed, never read as a note, no complaint', async () => {
  const v = tempVault({ 'x.md/inner.md': NOTE('Inner'), 'plain.md': NOTE('Plain') });
  try {
    symlinkSync('x.md', join(v.notes, 'y.md'));
    await afterScan(v, (_p, r, paths) => {
      assert.deepEqual(paths, ['plain.md', 'x.md/inner.md']);
      assert.ok(!r.skipped.some((s) => s.path === 'x.md'), JSON.stringify(r.skipped));
      assert.ok(r.skipped.some((s) => s.path === 'y.md' && /already walked/.test(s.reason)), 'a symlink to it is reported as a duplicate, once');
      // The convention sniffer agrees: a folder named like a template is not a template file.
      mkdirSync(join(v.notes, '_templates', 'adr.md'), { recursive: true });
      assert.equal(findCategoryTemplate(v.notes, '_templates', 'decision'), undefined);
    });
  } finally {
    v.cleanup();
  }
});
