import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initVault, VISION_TEMPLATE } from '../../../src/core/vault/init';
import { locateVault } from '../../../src/core/vault/paths';
import { parseNote } from '../../../src/core/vault/markdown';
import { sniffConventionsFor } from '../../../src/core/conventions';
import { K0Error } from '../../../src/core/errors';

const tmp = () => mkdtempSync(join(tmpdir(), 'k0init-'));

test('init creates the wiki layout, a vision template and the .gitignore; a second run creates nothing', () => {
  const root = tmp();
  const r = initVault({ projectRoot: root });
  assert.equal(r.mode, 'wiki');
  assert.deepEqual(r.created, [
    '.k0maru/',
    '.k0maru/.gitignore',
    '.k0maru/refs/',
    '.k0maru/refs/.gitkeep',
    '.k0maru/wiki/',
    '.k0maru/wiki/00_Meta/',
    '.k0maru/wiki/01_AI_Logs/',
    '.k0maru/wiki/01_AI_Logs/.gitkeep',
    '.k0maru/wiki/02_Architecture/',
    '.k0maru/wiki/02_Architecture/.gitkeep',
    '.k0maru/wiki/00_Meta/vision.md',
  ]);
  const vision = parseNote(readFileSync(join(root, '.k0maru/wiki/00_Meta/vision.md'), 'utf8'), '00_Meta/vision.md');
  assert.deepEqual(vision.headings.map((h) => h.text), ['Vision', 'Core Stack', 'Non-goals']);
  assert.equal(vision.frontmatter.category, 'meta');

  const again = initVault({ projectRoot: root });
  assert.deepEqual(again.created, []);
  assert.deepEqual(again.updated, []);
  assert.equal(again.found.length, r.created.length);

  // The layout is what locateVault and the sniffer expect.
  const paths = locateVault({ cwd: join(root, '.k0maru', 'wiki', '00_Meta'), env: {} });
  assert.equal(paths.notesRoot, join(root, '.k0maru', 'wiki'));
  const rules = sniffConventionsFor(paths);
  assert.deepEqual([rules.categoryFolders.decision, rules.source.decision], ['02_Architecture', 'heuristic']);
  assert.deepEqual([rules.categoryFolders.log, rules.source.log], ['01_AI_Logs', 'heuristic']);
});

test('git ignores the index and caches but tracks the wiki and refs', () => {
  const root = tmp();
  execFileSync('git', ['init', '-q'], { cwd: root });
  initVault({ projectRoot: root });
  for (const f of ['index.db', 'index.db.lock/x', 'cache/emb.bin', 'flush.lock/owner', 'wiki/.a.md.1234.tmp']) {
    mkdirSync(join(root, '.k0maru', f, '..'), { recursive: true });
    writeFileSync(join(root, '.k0maru', f), 'x');
  }
  const tracked = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).trim().split('\n').sort();
  assert.deepEqual(tracked, [
    '.k0maru/.gitignore',
    '.k0maru/refs/.gitkeep',
    '.k0maru/wiki/00_Meta/vision.md',
    '.k0maru/wiki/01_AI_Logs/.gitkeep',
    '.k0maru/wiki/02_Architecture/.gitkeep',
  ]);
});

test("a user's files are never overwritten; a partial .gitignore only gets the missing lines appended", () => {
  const root = tmp();
  mkdirSync(join(root, '.k0maru', 'wiki', '00_Meta'), { recursive: true });
  writeFileSync(join(root, '.k0maru', 'wiki', '00_Meta', 'vision.md'), '# Our vision\n\nShip it.\n');
  writeFileSync(join(root, '.k0maru', '.gitignore'), 'index.db\nmy-own-thing\n');
  const r = initVault({ projectRoot: root });
  assert.equal(readFileSync(join(root, '.k0maru/wiki/00_Meta/vision.md'), 'utf8'), '# Our vision\n\nShip it.\n');
  assert.ok(r.found.includes('.k0maru/wiki/00_Meta/vision.md'));
  assert.deepEqual(r.updated, ['.k0maru/.gitignore']);
  const gi = readFileSync(join(root, '.k0maru/.gitignore'), 'utf8');
  assert.ok(gi.startsWith('index.db\nmy-own-thing\n'));
  assert.equal(gi.match(/^index\.db$/gm)?.length, 1, 'no duplicate line');
  assert.match(gi, /^cache\/$/m);
  assert.notEqual(VISION_TEMPLATE, '');
});

test('--vault binds an existing Obsidian vault: config.json with a relative path inside the project, absolute outside; no wiki', () => {
  const root = tmp();
  mkdirSync(join(root, 'notes', '.obsidian'), { recursive: true });
  const r = initVault({ projectRoot: root, vault: 'notes' });
  assert.equal(r.mode, 'bound');
  assert.ok(!existsSync(join(root, '.k0maru', 'wiki')));
  assert.deepEqual(JSON.parse(readFileSync(join(root, '.k0maru/config.json'), 'utf8')), { vault: 'notes' });
  assert.equal(locateVault({ cwd: root, env: {} }).notesRoot, join(root, 'notes'));
  assert.deepEqual(initVault({ projectRoot: root, vault: join(root, 'notes') }).created, [], 'same binding again: idempotent');

  const elsewhere = tmp();
  const root2 = tmp();
  initVault({ projectRoot: root2, vault: elsewhere });
  assert.deepEqual(JSON.parse(readFileSync(join(root2, '.k0maru/config.json'), 'utf8')), { vault: elsewhere });
  assert.throws(() => initVault({ projectRoot: root2, vault: root }), (e: K0Error) => e.code === 'INVALID_ARGUMENT' && /already binds/.test(e.message));
});

test('a config.json with other keys gets the vault key added, the rest kept', () => {
  const root = tmp();
  mkdirSync(join(root, '.k0maru'), { recursive: true });
  mkdirSync(join(root, 'vault'));
  writeFileSync(join(root, '.k0maru/config.json'), JSON.stringify({ exclude: ['drafts/**'] }));
  const r = initVault({ projectRoot: root, vault: 'vault' });
  assert.deepEqual(r.updated, ['.k0maru/config.json']);
  assert.deepEqual(JSON.parse(readFileSync(join(root, '.k0maru/config.json'), 'utf8')), { exclude: ['drafts/**'], vault: 'vault' });
});

test('a --vault that does not exist is VAULT_NOT_FOUND and nothing is created', () => {
  const root = tmp();
  assert.throws(() => initVault({ projectRoot: root, vault: 'nope' }), (e: K0Error) => e.code === 'VAULT_NOT_FOUND');
  assert.ok(!existsSync(join(root, '.k0maru')));
  assert.throws(() => initVault({ projectRoot: join(root, 'missing') }), (e: K0Error) => e.code === 'INVALID_ARGUMENT');
});
