import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';

/**
 * Issue 12 item 6: ADR folders a repository already has are rule sources and indexed notes in place, by one folder
 * rule. Real git repositories in temp dirs, the real built CLI (dist/cli.mjs).
 */

const ADR = (id: string, title: string, rule: string) =>
  `---\nid: ${id}\nstatus: accepted\n---\n# ${id}: ${title}\n\nWe decided this about ${title.toLowerCase()}.\n\n## Rules\n\n- ${rule}\n`;

function repo(files: Record<string, string>): { root: string; write(rel: string, text: string): void; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'k0-adr-src-'));
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'initial', '--allow-empty');
  return { root, write, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function k0(cwd: string, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [DIST_CLI, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: cwd }, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('k0maru init in a repository with docs/adr/ guards it at once and recall finds the ADR (project paths are :/…)', () => {
  ensureBuilt();
  const r = repo({
    'docs/adr/0001-no-eval.md': ADR('ADR-001', 'No eval', 'deny: `eval(` | because: eval runs untrusted strings.'),
    'docs/adr/0002-zeppelin.md': '# ADR-002: Zeppelin naming\n\nSee [[0001-no-eval]].\n',
    'src/app.js': 'export const ok = 1;\n',
  });
  try {
    assert.equal(k0(r.root, 'init').code, 0);
    r.write('src/app.js', 'export const ok = 1;\nexport const bad = eval(input);\n');
    // The ADR itself quotes the forbidden call: ADR folders are never audited.
    r.write('docs/adr/0003-more.md', ADR('ADR-003', 'More', 'deny: `SELECT * FROM`'));
    git(r.root, 'add', '-A');
    const g = k0(r.root, 'guard', '--staged');
    assert.equal(g.code, 1, g.out + g.err);
    assert.match(g.out, /src\/app\.js:2/);
    assert.match(g.out, /:\/docs\/adr\/0001-no-eval\.md/);
    const j = JSON.parse(k0(r.root, 'guard', '--staged', '--json').out) as { violations: { path: string; adrPath: string }[] };
    assert.deepEqual(j.violations.map((v) => `${v.path}|${v.adrPath}`), ['src/app.js|:/docs/adr/0001-no-eval.md'], 'an ADR folder file is not checked against the rules');

    const rec = k0(r.root, 'recall', 'untrusted strings eval', '--json', '--mode', 'bm25');
    assert.equal(rec.code, 0, rec.err);
    const hits = JSON.parse(rec.out).hits as { path: string; tier: string }[];
    assert.equal(hits[0]?.path, ':/docs/adr/0001-no-eval.md', rec.out);
    assert.equal(hits[0].tier, 'L3');

    const full = k0(r.root, 'recall', 'untrusted strings eval', '--full', '--mode', 'bm25');
    assert.match(full.out, /eval runs untrusted strings/, 'recall --full reads the ADR in place');

    // A WikiLink from one ADR to another resolves by name inside the project folder.
    const links = k0(r.root, 'recall', 'Zeppelin naming', '--json', '--mode', 'bm25');
    const zep = (JSON.parse(links.out).hits as { path: string; linksOut: number }[]).find((h) => h.path === ':/docs/adr/0002-zeppelin.md');
    assert.equal(zep?.linksOut, 1, links.out);
  } finally {
    r.cleanup();
  }
});

test('config "sources" replaces the default folders; the index and the guard read the same set (exclude, symlinked folders)', () => {
  ensureBuilt();
  const r = repo({
    'design/adr/0001-no-moment.md': ADR('ADR-001', 'No moment', 'deny: `moment(` | because: use Luxon.'),
    'docs/adr/0001-no-eval.md': ADR('ADR-009', 'No eval', 'deny: `eval(`'),
    'shared-adrs/0001-no-lodash.md': ADR('ADR-010', 'No lodash', "deny: `require('lodash')`"),
    'src/a.js': '\n',
  });
  try {
    assert.equal(k0(r.root, 'init').code, 0);
    writeFileSync(join(r.root, '.k0maru', 'config.json'), JSON.stringify({ sources: ['design/adr'], exclude: ['drafts/**'] }));
    const wiki = join(r.root, '.k0maru', 'wiki');
    mkdirSync(join(wiki, 'drafts'), { recursive: true });
    writeFileSync(join(wiki, 'drafts', 'adr-x.md'), ADR('ADR-020', 'Draft', 'deny: `setTimeout(`'));
    symlinkSync(join(r.root, 'shared-adrs'), join(wiki, 'shared'));
    r.write('src/a.js', "moment(1);\neval(2);\nsetTimeout(3);\nconst _ = require('lodash');\n");
    git(r.root, 'add', '-A');
    const g = k0(r.root, 'guard', '--staged', '--json');
    const found = (JSON.parse(g.out).violations as { line: number; adrPath: string }[]).map((v) => `${v.line}:${v.adrPath}`).sort();
    assert.deepEqual(found, ['1::/design/adr/0001-no-moment.md', '4:shared/0001-no-lodash.md'], g.out);

    const scan = k0(r.root, 'scan', '--json');
    assert.equal(scan.code, 0, scan.err);
    const rec = k0(r.root, 'recall', 'ADR', '--json', '--mode', 'bm25', '--limit', '20');
    const paths = (JSON.parse(rec.out).hits as { path: string }[]).map((h) => h.path).sort();
    assert.ok(paths.includes(':/design/adr/0001-no-moment.md') && paths.includes('shared/0001-no-lodash.md'), paths.join(', '));
    assert.ok(!paths.some((p) => p.includes('docs/adr') || p.includes('drafts/')), paths.join(', '));
  } finally {
    r.cleanup();
  }
});

test('config "sources" outside the project is a coded error, not a walk of the file system', () => {
  ensureBuilt();
  const r = repo({ 'src/a.js': '\n' });
  try {
    const init = k0(r.root, 'init');
    assert.equal(init.code, 0, init.out + init.err);
    writeFileSync(join(r.root, '.k0maru', 'config.json'), JSON.stringify({ sources: ['../../etc'] }));
    const s = k0(r.root, 'scan');
    assert.notEqual(s.code, 0, s.out + s.err);
    assert.match(s.err, /PATH_OUTSIDE_VAULT/, `exit ${s.code}: ${s.out}${s.err}`);
  } finally {
    r.cleanup();
  }
});
