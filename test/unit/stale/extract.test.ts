import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnchorRef } from '../../../src/core/stale/anchorSyntax';
import { extractCandidates, MAX_CANDIDATES } from '../../../src/core/stale/extract';
import { parseNote } from '../../../src/core/vault/markdown';
import { listStale } from '../../../src/core/stale';
import { definitionParses } from '../../../src/core/stale/definitions';
import { staleRepo } from './repo';

test('anchor syntax: paths with :N, :N-M, #LN, #LN-LM; symbols; prose and escapes are not anchors', () => {
  assert.deepEqual(parseAnchorRef('src/db/pool.go'), [{ kind: 'path', path: 'src/db/pool.go' }]);
  assert.deepEqual(parseAnchorRef('payments/webhook.ts:42'), [{ kind: 'path', path: 'payments/webhook.ts', startLine: 42, endLine: 42 }]);
  assert.deepEqual(parseAnchorRef('a/b.ts:10-20'), [{ kind: 'path', path: 'a/b.ts', startLine: 10, endLine: 20 }]);
  assert.deepEqual(parseAnchorRef('a/b.ts#L10-L20'), [{ kind: 'path', path: 'a/b.ts', startLine: 10, endLine: 20 }]);
  assert.deepEqual(parseAnchorRef('a/b.ts#L7'), [{ kind: 'path', path: 'a/b.ts', startLine: 7, endLine: 7 }]);
  assert.deepEqual(parseAnchorRef('src/a.ts#acquireLock'), [{ kind: 'symbol', name: 'acquireLock', path: 'src/a.ts' }]);
  assert.deepEqual(parseAnchorRef('acquireLock()'), [{ kind: 'symbol', name: 'acquireLock', container: undefined }]);
  assert.deepEqual(parseAnchorRef('Pool.acquire'), [{ kind: 'path', path: 'Pool.acquire' }, { kind: 'symbol', name: 'acquire', container: 'Pool' }]);
  assert.deepEqual(parseAnchorRef('cache'), [], 'a plain word is prose');
  assert.deepEqual(parseAnchorRef('cache()').map((r) => r.kind), ['symbol']);
  for (const no of ['../etc/passwd', '/etc/passwd', 'https://x.io/a.ts', 'src/*.ts', 'npm run build', 'a/b.ts:0', 'a/b.ts:9-3', 'C:\\x\\y.ts']) {
    assert.deepEqual(parseAnchorRef(no).filter((r) => r.kind === 'path'), [], no);
  }
  assert.deepEqual(parseAnchorRef('../src/a.ts', { link: true, fromDir: '.k0maru/wiki' }), [{ kind: 'path', path: '.k0maru/src/a.ts' }]);
  assert.deepEqual(parseAnchorRef('../../../x.ts', { link: true, fromDir: '.k0maru/wiki' }), []);
});

test('extraction reads inline code and link targets with their lines; code blocks are examples, not anchors', () => {
  const note = parseNote('---\nanchors:\n  - src/x.ts:3\n---\n# T\n\nFirst `src/a.ts`\nthen [b](../../src/b.ts#L2).\n\n```ts\nimport from `src/c.ts`\n```\n', '.k0maru/wiki/t.md');
  const c = extractCandidates(note, '.k0maru/wiki/t.md').candidates;
  assert.deepEqual(c.map((x) => [x.text, x.source, x.noteLine]), [
    ['src/x.ts:3', 'frontmatter', 1],
    ['src/a.ts', 'text', 7],
    ['../../src/b.ts#L2', 'text', 8],
  ]);
  assert.deepEqual(c[2].ref, { kind: 'path', path: 'src/b.ts', startLine: 2, endLine: 2 });
});

test('extraction stops at MAX_CANDIDATES and says it was truncated', () => {
  const body = Array.from({ length: MAX_CANDIDATES + 50 }, (_, i) => `\`src/f${i}.ts\``).join(' ');
  const e = extractCandidates(parseNote(`# H\n\n${body}\n`, 'h.md'), 'h.md');
  assert.equal(e.candidates.length, MAX_CANDIDATES);
  assert.equal(e.truncated, true);
});

test('symbols: one definition is an anchor, an ambiguous name is not (explicit ones warn and can be pinned as path#name)', async () => {
  const r = staleRepo();
  try {
    r.write('src/a.ts', 'export function connectDb() {\n  return 1;\n}\nexport function retryLater() {\n  return 1;\n}\n');
    r.write('src/b.ts', 'export function retryLater() {\n  return 2;\n}\n');
    r.write('src/pool.py', 'class Pool:\n    def acquire(self):\n        return 1\n\nMAX_SIZE = 4\n');
    r.note('n.md', '---\nanchors:\n  - retryLater\n  - src/b.ts#retryLater\n---\n# N\n\n`connectDb()` `retryLater()` `Pool.acquire` `MAX_SIZE`\n');
    r.commit('c');
    const p = r.open();
    const rep = await p.scan();
    const anchors = JSON.parse(String(p.index.get('SELECT anchors FROM stale_notes')!.anchors)) as { kind: string; path: string; symbol?: string }[];
    assert.deepEqual(anchors.map((a) => `${a.kind}:${a.path}:${a.symbol ?? ''}`).sort(), [
      'symbol:src/a.ts:connectDb',
      'symbol:src/b.ts:retryLater',
      'symbol:src/pool.py:MAX_SIZE',
      'symbol:src/pool.py:acquire',
    ]);
    assert.ok(rep.staleness!.warnings.some((w) => /`retryLater` is ambiguous \(defined in src\/a\.ts, src\/b\.ts\)/.test(w)), rep.staleness!.warnings.join('\n'));
    // The pinned one is live: changing b's body makes the note stale, changing a's does not.
    r.write('src/a.ts', 'export function connectDb() {\n  return 1;\n}\nexport function retryLater() {\n  return 9;\n}\n');
    r.commit('a');
    await p.scan();
    assert.equal(listStale(p.index).length, 0);
    r.write('src/b.ts', 'export function retryLater() {\n  return 3;\n}\n');
    r.commit('b');
    await p.scan();
    assert.match(listStale(p.index)[0]?.info.reason ?? '', /^`src\/b\.ts#retryLater` changed in 1 commit/);
  } finally {
    r.cleanup();
  }
});

test('definitions are cached by blob id: a rescan after an unrelated note edit parses no source file again', async () => {
  const r = staleRepo();
  try {
    r.write('src/a.ts', 'export function connectDb() {\n  return 1;\n}\n');
    r.note('n.md', '# N\n\n`connectDb()`\n');
    r.commit('c');
    const p = r.open();
    await p.scan();
    assert.equal(Number(p.index.get('SELECT count(*) AS n FROM stale_defs')!.n), 1);
    r.note('n.md', '# N\n\n`connectDb()` again\n');
    // A fresh handle (a new process would have one): the parse comes from the index, not from memory.
    p.close();
    const q = r.open();
    const before = definitionParses();
    await q.scan();
    assert.equal(definitionParses(), before, 'no source file parsed again');
    r.write('src/a.ts', 'export function connectDb() {\n  return 2;\n}\n');
    r.note('n.md', '# N\n\n`connectDb()` once more\n');
    await q.scan();
    assert.equal(definitionParses(), before + 1, 'the changed file is parsed once');
    assert.equal(Number(q.index.get('SELECT count(*) AS n FROM stale_defs')!.n), 2);
  } finally {
    r.cleanup();
  }
});

test('a constructor named like its class is the class, not a second definition (Java, C#)', async () => {
  const r = staleRepo();
  try {
    r.write('src/LocationsController.cs', 'public class LocationsController {\n  public LocationsController(int a) {\n    x = a;\n  }\n}\n');
    r.write('src/Pool.java', 'class Pool {\n  Pool() {}\n  void acquire() {}\n}\n');
    r.note('n.md', '# N\n\n`LocationsController` and `Pool`\n');
    r.commit('c');
    const p = r.open();
    await p.scan();
    const anchors = JSON.parse(String(p.index.get('SELECT anchors FROM stale_notes')!.anchors)) as { symbol?: string; startLine?: number; endLine?: number }[];
    assert.deepEqual(anchors.map((a) => [a.symbol, a.startLine, a.endLine]), [['LocationsController', 1, 5], ['Pool', 1, 4]]);
  } finally {
    r.cleanup();
  }
});

test('noteText (frontmatter + body only) gives the candidates parseNote gives, frontmatter anchors and line numbers included', async () => {
  const { noteText } = await import('../../../src/core/stale/extract');
  const raw = '\ufeff---\ntitle: T\nanchors:\n  - src/a.ts#alpha\n---\r\n# H\r\n\r\nSee `src/b.ts:3` and [c](../../src/c.ts).\n\n```\n`src/not.ts`\n```\n\nAlso `gamma()`.\n';
  const viaParse = extractCandidates(parseNote(raw, 'notes/h.md'), 'notes/h.md');
  const viaText = extractCandidates(noteText(raw), 'notes/h.md');
  assert.deepEqual(viaText, viaParse);
  assert.ok(viaText.candidates.length >= 3);
});
