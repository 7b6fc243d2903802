import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openProject, type Project } from '../../../src/core/project';
import { recall } from '../../../src/core/search/recall';
import { renderWire } from '../../../src/core/search/wire';
import { resolveLinks } from '../../../src/core/index/links';
import { tempVault, type TempVault } from '../../helpers/tempVault';

let v: TempVault;
let p: Project;

before(async () => {
  v = tempVault({
    '02_Architecture/adr-001-sqlite.md': '---\ntitle: ADR-001 SQLite busy handling\ncategory: decision\nstatus: superseded\n---\n# ADR-001\nRetry on SQLITE_BUSY with back-off. See [[adr-002-wal]].\n',
    '02_Architecture/adr-002-wal.md': '---\ntitle: ADR-002 WAL mode\ncategory: decision\nstatus: accepted\n---\n# ADR-002\nUse WAL so readers never block; SQLITE_BUSY only on writer contention.\n',
    '01_AI_Logs/2026-01-01-borrow.md': '---\ncategory: log\n---\n# Borrow checker fight\nerror[E0502]: cannot borrow `v` as mutable because it is also borrowed as immutable. Fixed with `Option<&mut T>`.\n',
    'misc/Readme.md': '# Readme\nNothing about databases.\n',
    'deep/path/readme.md': '# Another readme\nlonger path\n',
    'links.md': 'Links to [[readme]] and [[path/readme]] and [[Missing Note]].\n',
  });
  p = openProject({ vault: v.root });
  await p.scan();
});
after(() => {
  p.close();
  v.cleanup();
});

const WIRE = /^!μ:L[123]\|[^|]+\|score:\d+\.\d+\|links:\d+\/\d+ § .*$/u;

test('compact output is exactly the wire line, one per hit, on one line', async () => {
  const r = await recall(p, 'SQLITE_BUSY', { mode: 'bm25' });
  assert.ok(r.hits.length >= 2);
  const lines = renderWire(r.hits).split('\n');
  assert.equal(lines.length, r.hits.length);
  for (const l of lines) assert.match(l, WIRE);
});

test('exact symbols are found', async () => {
  for (const [q, path] of [
    ['E0502', '01_AI_Logs/2026-01-01-borrow.md'],
    ['Option<&mut T>', '01_AI_Logs/2026-01-01-borrow.md'],
  ] as const) {
    const r = await recall(p, q, { mode: 'bm25' });
    assert.equal(r.hits[0]?.path, path, `${q} → ${r.hits.map((h) => h.path).join(', ')}`);
  }
});

test('an exact symbol split by the tokenizer matches as a phrase, not as loose words', async () => {
  const r = await recall(p, 'SQLITE_BUSY', { mode: 'bm25' });
  assert.deepEqual(r.hits.map((h) => h.path).sort(), ['02_Architecture/adr-001-sqlite.md', '02_Architecture/adr-002-wal.md']);
});

test('FTS5 syntax in a query never throws', async () => {
  for (const q of ['Option<&mut T>', '"unbalanced', 'a AND', 'NOT', 'NEAR(', '*', 'col:val', '(((', "O'Reilly", '^start', '-x', '""', 'AND OR NOT']) {
    const r = await recall(p, q, { mode: 'bm25' });
    assert.ok(Array.isArray(r.hits), q);
  }
});

test('superseded notes are marked and rank below what replaced them', async () => {
  const r = await recall(p, 'SQLITE_BUSY back-off', { mode: 'bm25' });
  const old = r.hits.find((h) => h.path.endsWith('adr-001-sqlite.md'))!;
  assert.equal(old.superseded, true);
  assert.match(renderWire([old]), /§ \[superseded\] /);
});

test('full returns the Markdown of the note; hybrid without a model says it answered with BM25', async () => {
  const r = await recall(p, 'E0502', { full: true });
  assert.equal(r.effectiveMode, 'bm25');
  assert.ok(r.warnings.some((w) => /vector channel unavailable/.test(w)));
  assert.match(r.hits[0].markdown!, /^---\ncategory: log/);
});

test('links resolve like Obsidian: case-insensitive, shortest path wins, folder-qualified, unresolved kept', () => {
  resolveLinks(p.index);
  const rows = p.index.all('SELECT l.target, d.path FROM links l LEFT JOIN documents d ON d.id = l.to_doc JOIN documents f ON f.id = l.from_doc WHERE f.path = ? ORDER BY l.line, l.target', ['links.md']);
  const map = Object.fromEntries(rows.map((r) => [r.target, r.path]));
  assert.equal(map['readme'], 'misc/Readme.md');
  assert.equal(map['path/readme'], 'deep/path/readme.md');
  assert.equal(map['missing note'], null);
});

test('invalid limit and empty query are clear errors', async () => {
  await assert.rejects(recall(p, '  '), /non-empty/);
  await assert.rejects(recall(p, 'x', { limit: 0 }), /limit/);
});
