import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, type Stats } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeRepo } from './helpers';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { GITIGNORE_LINES } from '../../../src/core/vault/init';
import { loadVaultRules } from '../../../src/core/guard/ruleStore';
import { openRuleCacheFile, RACY_MS, RULE_CACHE_FILE } from '../../../src/core/guard/ruleCacheFile';
import { pathsForProject, type VaultPaths } from '../../../src/core/vault/paths';
import type { AdrRules } from '../../../src/core/guard/types';

// The one-shot processes' compiled-rule cache (.k0maru/cache/guard-rules.json, src/core/guard/ruleCacheFile.ts).
// It must give exactly what a fresh parse gives, miss on every edit, and never be trusted for more than speed.

const CORPUS = resolve(__dirname, '..', '..', '..', '..', 'shared', 'corpus', 'adr-vault');
/** A load that treats every note as old enough to cache (the freshness rule is tested on its own below). */
const LATER = () => Date.now() + 60_000;
/** A whole-second timestamp long ago (utimes sets whole seconds exactly). */
const OLD = 1_700_000_000;

/** Plain JSON data: what a cached load hands out, and what a fresh parse must equal. */
const norm = (adrs: AdrRules[]) => JSON.parse(JSON.stringify(adrs)) as AdrRules[];

function project(notesRoot?: string): { paths: VaultPaths; cacheFile: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), 'k0rulecache-'));
  mkdirSync(join(root, '.k0maru', 'wiki'), { recursive: true });
  if (notesRoot) writeFileSync(join(root, '.k0maru', 'config.json'), JSON.stringify({ vault: notesRoot }));
  const paths = pathsForProject(root);
  return { paths, cacheFile: join(paths.k0Dir, 'cache', RULE_CACHE_FILE), dispose: () => rmSync(root, { recursive: true, force: true }) };
}

const ADR = (pattern: string) => `---\nstatus: accepted\n---\n# ADR-7: No ${pattern}\n\n## Invariants\n\n- deny: \`${pattern}(\` | id: NO-X\n`;
const patterns = (adrs: AdrRules[]) => adrs.flatMap((a) => a.rules.map((r) => r.pattern.source));

/** A project whose vault holds one ADR, `adr-007.md` denying `evalA(` (written just now), removed after `fn`. */
function withAdr(fn: (p: ReturnType<typeof project>, note: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const p = project();
    const note = join(p.paths.notesRoot, 'adr-007.md');
    try {
      writeFileSync(note, ADR('evalA'));
      await fn(p, note);
    } finally {
      p.dispose();
    }
  };
}

test('on the real ADR corpus (read in place) a cached load gives exactly the rules of a fresh parse', async () => {
  assert.ok(existsSync(CORPUS), `corpus missing at ${CORPUS}`);
  const p = project(CORPUS);
  try {
    const fresh = await loadVaultRules(p.paths, null, { cacheFile: false });
    assert.equal(fresh.cacheFile, 'none');
    const inferred = fresh.adrs.flatMap((a) => a.rules).filter((r) => r.origin === 'inferred').length;
    const diagnostics = fresh.adrs.flatMap((a) => a.diagnostics).length;
    assert.ok(fresh.adrs.length > 100 && inferred > 0 && diagnostics > 0, `corpus too small to mean anything: ${fresh.adrs.length} ADRs, ${inferred} inferred rules, ${diagnostics} diagnostics`);
    // Nothing JSON cannot carry besides absent-vs-undefined: the shape the cache relies on.
    for (const a of fresh.adrs) for (const r of a.rules) for (const v of Object.values(r)) assert.ok(v === undefined || ['string', 'number', 'boolean', 'object'].includes(typeof v));

    const first = await loadVaultRules(p.paths, null);
    assert.equal(first.cacheFile, 'new');
    assert.equal(first.cached, 0);
    assert.deepEqual(norm(first.adrs), norm(fresh.adrs));
    assert.ok(existsSync(p.cacheFile), 'the first load writes the cache');

    const second = await loadVaultRules(p.paths, null);
    assert.equal(second.cacheFile, 'loaded');
    assert.equal(second.parsed, 0, 'every corpus note is old: all come from the cache');
    assert.equal(second.cached, first.parsed);
    assert.deepEqual(second.adrs, norm(fresh.adrs));
  } finally {
    p.dispose();
  }
});

test('an edit misses the cache: a new size, and a same-size edit that restores the old mtime (ctime still moves)', withAdr(async (p, note) => {
  assert.deepEqual(patterns((await loadVaultRules(p.paths, null, { now: LATER() })).adrs), ['evalA(']);
  const hit = await loadVaultRules(p.paths, null, { now: LATER() });
  assert.equal(hit.cached, 1);
  assert.deepEqual(patterns(hit.adrs), ['evalA(']);

  writeFileSync(note, ADR('evalLonger'));
  const grown = await loadVaultRules(p.paths, null, { now: LATER() });
  assert.equal(grown.parsed, 1);
  assert.deepEqual(patterns(grown.adrs), ['evalLonger(']);

  // Same size, and the mtime put back as it was (`touch -d`, an editor that keeps mtimes, a restore tool).
  // Whole seconds, which utimes sets exactly.
  utimesSync(note, OLD, OLD);
  assert.equal((await loadVaultRules(p.paths, null, { now: LATER() })).parsed, 1, 'touched: cached anew');
  assert.equal((await loadVaultRules(p.paths, null, { now: LATER() })).cached, 1);
  const before = statSync(note);
  writeFileSync(note, ADR('evalShrunk'));
  utimesSync(note, OLD, OLD);
  assert.equal(statSync(note).size, before.size);
  assert.equal(statSync(note).mtimeMs, before.mtimeMs);
  const restored = await loadVaultRules(p.paths, null, { now: LATER() });
  assert.equal(restored.parsed, 1, 'ctime (or the inode) differs, so the cached entry is not used');
  assert.deepEqual(patterns(restored.adrs), ['evalShrunk(']);

  // A note removed from the vault leaves the file.
  rmSync(note);
  assert.deepEqual((await loadVaultRules(p.paths, null, { now: LATER() })).adrs, []);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(p.cacheFile, 'utf8')).entries), []);
}));

test('a note edited less than RACY_MS before the load is parsed but never cached (the same-tick, same-size blind spot)', withAdr(async (p, note) => {
  const first = await loadVaultRules(p.paths, null); // the real clock: the note was written a moment ago
  assert.deepEqual(patterns(first.adrs), ['evalA(']);
  const cached = existsSync(p.cacheFile) ? Object.keys(JSON.parse(readFileSync(p.cacheFile, 'utf8')).entries) : [];
  assert.deepEqual(cached, [], 'no entry for a fresh note');
  // Same size, same mtime, as an edit inside the same timestamp tick would leave it. (This file system's ctime
  // would still tell them apart; on a coarse one it would not, which is why the entry was never written.)
  utimesSync(note, OLD, OLD);
  writeFileSync(note, ADR('evalB'));
  utimesSync(note, OLD, OLD);
  const second = await loadVaultRules(p.paths, null);
  assert.equal(second.cached, 0);
  assert.deepEqual(patterns(second.adrs), ['evalB(']);
}));

test('a corrupt, foreign or tampered cache file is ignored and rewritten; a config change that could affect parsing misses', withAdr(async (p, note) => {
  await loadVaultRules(p.paths, null, { now: LATER() });
  const good = readFileSync(p.cacheFile, 'utf8');

  for (const bad of ['{"format": "k0maru-guard-rules", "key": ', '[1, 2, 3]', '{"format": "something-else", "key": "x", "entries": {}}', '']) {
    writeFileSync(p.cacheFile, bad);
    const r = await loadVaultRules(p.paths, null, { now: LATER() });
    assert.equal(r.cacheFile, 'ignored', `not ignored: ${JSON.stringify(bad)}`);
    assert.deepEqual(patterns(r.adrs), ['evalA(']);
    assert.equal(r.parsed, 1);
    assert.equal(readFileSync(p.cacheFile, 'utf8'), good, 'rewritten');
  }

  // Right key and stats, but an entry that claims another note's path or lacks its rules: parsed again.
  const doc = JSON.parse(good);
  const rel = Object.keys(doc.entries)[0];
  for (const tamper of [{ ...doc.entries[rel].p, adrPath: 'other.md' }, { ...doc.entries[rel].p, rules: 'none' }, 42]) {
    writeFileSync(p.cacheFile, JSON.stringify({ ...doc, entries: { [rel]: { ...doc.entries[rel], p: tamper } } }));
    const r = await loadVaultRules(p.paths, null, { now: LATER() });
    assert.equal(r.parsed, 1);
    assert.deepEqual(patterns(r.adrs), ['evalA(']);
  }

  // The vault's guard settings are part of the key.
  writeFileSync(p.paths.configPath, JSON.stringify({ guard: { inferred: 'block' } }));
  const changed = await loadVaultRules(p.paths, null, { now: LATER() });
  assert.equal(changed.cacheFile, 'ignored');
  assert.equal(changed.parsed, 1);
  assert.equal((await loadVaultRules(p.paths, null, { now: LATER() })).cached, 1);
}));

test('the cache file and its folder are never followed when they are symlinks', async () => {
  const p = project();
  const elsewhere = mkdtempSync(join(tmpdir(), 'k0rulecache-target-'));
  try {
    writeFileSync(join(p.paths.notesRoot, 'adr-007.md'), ADR('evalA'));
    await loadVaultRules(p.paths, null, { now: LATER() });
    const good = readFileSync(p.cacheFile, 'utf8');

    // The file as a symlink (to a valid cache): not read, and the save replaces the link, not its target.
    const target = join(elsewhere, 'target.json');
    writeFileSync(target, good);
    rmSync(p.cacheFile);
    symlinkSync(target, p.cacheFile);
    const viaLink = await loadVaultRules(p.paths, null, { now: LATER() });
    assert.equal(viaLink.cacheFile, 'new');
    assert.equal(viaLink.parsed, 1);
    assert.equal(readFileSync(target, 'utf8'), good);
    assert.ok(lstatSync(p.cacheFile).isFile(), "the link was replaced by our file");

    // The folder as a symlink: no cache at all, nothing written there.
    rmSync(join(p.paths.k0Dir, 'cache'), { recursive: true });
    symlinkSync(elsewhere, join(p.paths.k0Dir, 'cache'));
    const disabled = await loadVaultRules(p.paths, null, { now: LATER() });
    assert.equal(disabled.cacheFile, 'disabled');
    assert.deepEqual(patterns(disabled.adrs), ['evalA(']);
    assert.ok(!existsSync(join(elsewhere, RULE_CACHE_FILE)));
  } finally {
    p.dispose();
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('the freshness rule on stats alone: an entry recorded less than RACY_MS after its timestamps is never written', () => {
  // Simulates a file system whose mtime and ctime tick in whole seconds: an edit in the same tick leaves every
  // stat field as it was, so only not caching a fresh note keeps the cache right.
  const p = project();
  try {
    const T = 1_800_000_000_000; // ms, a whole second
    const st = { mtimeMs: T, ctimeMs: T, size: 120, ino: 42 } as Stats;
    const adr: AdrRules = { adrId: 'A', adrPath: 'a.md', title: 'A', active: true, rules: [], diagnostics: [] };
    const key = 'test-key';
    const soon = openRuleCacheFile(p.paths.k0Dir, { key, now: T + RACY_MS - 1 });
    soon.record('a.md', st, adr);
    soon.save(new Set(['a.md']));
    assert.equal(openRuleCacheFile(p.paths.k0Dir, { key, now: T + 10 * RACY_MS }).lookup('a.md', st), undefined, 'not cached: could be edited in this tick');
    const later = openRuleCacheFile(p.paths.k0Dir, { key, now: T + RACY_MS + 1 });
    later.record('a.md', st, adr);
    later.save(new Set(['a.md']));
    const reopened = openRuleCacheFile(p.paths.k0Dir, { key, now: T + 10 * RACY_MS });
    assert.deepEqual(reopened.lookup('a.md', st), adr);
    assert.equal(reopened.lookup('a.md', { ...st, ctimeMs: T + 1 } as Stats), undefined, 'any stat field differs: a miss');
    assert.equal(openRuleCacheFile(p.paths.k0Dir, { key: 'other-key', now: T }).status, 'ignored');
  } finally {
    p.dispose();
  }
});

const FROM_SOURCE = ['--import', pathToFileURL(require.resolve('tsx')).href, resolve(__dirname, '..', '..', 'fixtures', 'guard', 'runCli.ts')];

for (const [how, cliArgs] of [['from source', FROM_SOURCE], ['bundled (dist/cli.mjs)', [DIST_CLI]]] as const) test(`the real pre-commit hook, ${how}, in a real git repo: served from the cache once the ADR has aged, and an edit that keeps size and mtime is still seen`, () => {
  if (cliArgs[0] === DIST_CLI) ensureBuilt();
  const r = makeRepo({ '.k0maru/wiki/adr/adr-007.md': ADR('evalA'), 'src/ok.ts': 'export const ok = 1;\n' });
  const adr = join(r.root, '.k0maru', 'wiki', 'adr', 'adr-007.md');
  const cacheFile = join(r.root, '.k0maru', 'cache', RULE_CACHE_FILE);
  const hook = () => spawnSync(process.execPath, [...cliArgs, 'hook', 'pre-commit'], { cwd: r.root, encoding: 'utf8' });
  const cachedPaths = () => (existsSync(cacheFile) ? Object.keys(JSON.parse(readFileSync(cacheFile, 'utf8')).entries) : []);
  try {
    // The ignore file `k0maru init` writes (src/core/vault/init.ts) covers the cache.
    writeFileSync(join(r.root, '.k0maru', '.gitignore'), GITIGNORE_LINES.join('\n') + '\n');
    r.commit('init');
    utimesSync(adr, OLD, OLD);
    r.write('src/bad.ts', 'export const x = evalA(1);\nexport const y = evalB(2);\n');
    r.git('add', 'src/bad.ts');
    // Each run parses the ADR until it is older than RACY_MS, then writes its entry: wait for that condition.
    let runs = 0;
    while (!cachedPaths().includes('adr/adr-007.md')) {
      assert.ok(++runs <= 30, 'the ADR never reached the cache');
      const res = hook();
      assert.equal(res.status, 1, res.stderr);
      assert.match(res.stderr, /evalA\(/);
    }
    const served = hook();
    assert.equal(served.status, 1);
    assert.match(served.stderr, /NO-X/);
    assert.doesNotMatch(served.stderr, /evalB\(/);

    // Same size, mtime put back: the hook must enforce the new text.
    const before = statSync(adr);
    writeFileSync(adr, ADR('evalB'));
    utimesSync(adr, OLD, OLD);
    assert.equal(statSync(adr).size, before.size);
    assert.equal(statSync(adr).mtimeMs, before.mtimeMs);
    const edited = hook();
    assert.equal(edited.status, 1, edited.stderr);
    assert.match(edited.stderr, /evalB\(/);
    assert.doesNotMatch(edited.stderr, /evalA\(/);
    assert.equal(r.git('status', '--porcelain', '--', '.k0maru/cache'), '', 'the cache is git-ignored');
  } finally {
    r.dispose();
  }
});

test('the cache folder ignores itself in git, even in a project whose ignore files do not mention it', async () => {
  const r = makeRepo({ '.k0maru/wiki/adr-007.md': ADR('evalA') });
  try {
    r.commit('init');
    const loaded = await loadVaultRules(pathsForProject(r.root), null, { now: LATER() });
    assert.equal(loaded.cacheFile, 'new');
    assert.ok(existsSync(join(r.root, '.k0maru', 'cache', RULE_CACHE_FILE)));
    assert.equal(r.git('status', '--porcelain', '--untracked-files=all'), '');
  } finally {
    r.dispose();
  }
});
