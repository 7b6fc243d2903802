import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { flushNote, setFrontmatterFields } from '../../../src/core/flush';
import { K0Error } from '../../../src/core/errors';
import { read, snapshot, tempProject } from './helpers';

const DATE = '2026-11-30';
const ADR_TOOLS = '/work/shared/corpus/adr-vault/adr-tools/doc/adr';

function fm(text: string): Record<string, unknown> {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  assert.ok(m, 'has frontmatter');
  return parse(m[1]) as Record<string, unknown>;
}

/** The bytes after the frontmatter block. */
function bodyOf(text: string): string {
  return text.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
}

test('supersedes by ADR id: old note gets status + superseded_by, every other byte is kept; new note links back', async () => {
  const p = tempProject('k0maru-default');
  const oldRel = '02_Architecture/adr-001-use-sqlite.md';
  const oldBefore = read(p, oldRel);
  const r = await flushNote(p, { title: 'Use Postgres', content: 'We outgrew SQLite.', category: 'decision', supersedes: 'ADR-001', date: DATE });
  assert.equal(r.path, '02_Architecture/adr-002-use-postgres.md');
  assert.deepEqual(r.superseded, [oldRel]);
  const oldAfter = read(p, oldRel);
  assert.deepEqual(fm(oldAfter), { title: 'Use SQLite', status: 'superseded', superseded_by: '[[adr-002-use-postgres]]' });
  assert.equal(bodyOf(oldAfter), bodyOf(oldBefore));
  // Only the status line changed and one line was added: a line-level edit, not a re-serialisation.
  assert.deepEqual(
    oldAfter.split('\n').filter((l) => !oldBefore.split('\n').includes(l)),
    ['status: superseded', 'superseded_by: "[[adr-002-use-postgres]]"'],
  );
  assert.deepEqual(fm(read(p, r.path)).supersedes, ['[[adr-001-use-sqlite]]']);
});

test('real adr-tools ADRs without frontmatter: resolved by 0002, by title and by file name; frontmatter prepended, body byte-identical', async () => {
  const p = tempProject();
  const dir = join(p.notesRoot, 'doc', 'adr');
  mkdirSync(dir, { recursive: true });
  cpSync(ADR_TOOLS, dir, { recursive: true });
  const names = readdirSync(dir);
  const originals = new Map(names.map((n) => [n, readFileSync(join(dir, n))]));
  const r = await flushNote(p, {
    title: 'Rewrite in Go',
    content: 'Shell scripts do not run on Windows.',
    category: 'decision',
    supersedes: ['0002', 'Markdown format', '0008-use-iso-8601-format-for-dates'],
    date: DATE,
  });
  assert.equal(r.path, 'doc/adr/0010-rewrite-in-go.md', 'continues the corpus numbering');
  assert.deepEqual(r.superseded, [
    'doc/adr/0002-implement-as-shell-scripts.md',
    'doc/adr/0004-markdown-format.md',
    'doc/adr/0008-use-iso-8601-format-for-dates.md',
  ]);
  for (const rel of r.superseded) {
    const name = rel.split('/').pop()!;
    const after = readFileSync(join(p.notesRoot, rel));
    const header = Buffer.from('---\nstatus: superseded\nsuperseded_by: "[[0010-rewrite-in-go]]"\n---\n');
    assert.ok(after.subarray(0, header.length).equals(header), `${name} header`);
    assert.ok(after.subarray(header.length).equals(originals.get(name)!), `${name} body untouched`);
  }
  const untouched = names.filter((n) => !r.superseded.some((s) => s.endsWith(n)));
  for (const n of untouched) assert.ok(readFileSync(join(dir, n)).equals(originals.get(n)!), `${n} untouched`);
  assert.deepEqual(fm(read(p, r.path)).supersedes, [
    '[[0002-implement-as-shell-scripts]]',
    '[[0004-markdown-format]]',
    '[[0008-use-iso-8601-format-for-dates]]',
  ]);
});

test('unknown supersedes reference: NOTE_NOT_FOUND and nothing written at all', async () => {
  const p = tempProject('k0maru-default');
  const before = snapshot(p.notesRoot);
  await assert.rejects(
    flushNote(p, { title: 'X', content: 'y', category: 'decision', supersedes: ['ADR-001', 'ADR-404'], date: DATE }),
    (e: K0Error) => e.code === 'NOTE_NOT_FOUND' && /ADR-404/.test(e.message),
  );
  assert.deepEqual(snapshot(p.notesRoot), before);
});

test('a failure halfway through the commit rolls every file back', async () => {
  for (const failAt of [
    ['create', 0],
    ['rename', 0],
    ['rename', 1],
  ] as const) {
    const p = tempProject('flat-adr');
    const before = snapshot(p.notesRoot);
    await assert.rejects(
      flushNote(p, {
        title: 'Use MySQL',
        content: 'x',
        category: 'decision',
        supersedes: ['0001', '0002'],
        date: DATE,
        },
        {
          fault: (step, i) => {
            if (step === failAt[0] && i === failAt[1]) throw new Error(`injected at ${step} ${i}`);
          },
        },
      ),
      /injected/,
    );
    assert.deepEqual(snapshot(p.notesRoot), before, `after a failure at ${failAt.join(' ')}, no file changed and no temp remains`);
  }
});

test('an old note edited by someone between read and commit: WRITE_CONFLICT, nothing written', async () => {
  const p = tempProject('flat-adr');
  const target = join(p.notesRoot, 'docs/adr/0002-use-postgres.md');
  let snap: Map<string, string> | undefined;
  await assert.rejects(
    flushNote(p, { title: 'Use MySQL', content: 'x', category: 'decision', supersedes: ['0001', '0002'], date: DATE }, {
      fault: (step, i) => {
        if (step === 'create') {
          writeFileSync(target, readFileSync(target, 'utf8') + '\nEdited by a human.\n');
          snap = snapshot(p.notesRoot);
        }
        void i;
      },
    }),
    (e: K0Error) => e.code === 'WRITE_CONFLICT',
  );
  // The human's edit survives, our new note is gone, 0001 is back to its original bytes.
  const after = snapshot(p.notesRoot);
  assert.match(after.get('docs/adr/0002-use-postgres.md')!, /Edited by a human/);
  assert.ok(!after.has('docs/adr/0003-use-mysql.md'));
  assert.ok(snap && !snap.get('docs/adr/0001-record-architecture-decisions.md')!.includes('superseded'));
  assert.ok(!after.get('docs/adr/0001-record-architecture-decisions.md')!.includes('superseded'));
});

test('re-running the same superseding flush is up to date and rewrites nothing', async () => {
  const p = tempProject('k0maru-default');
  const input = { title: 'Use Postgres', content: 'x', category: 'decision', supersedes: 'adr-001', date: DATE };
  await flushNote(p, input);
  const before = snapshot(p.notesRoot);
  const again = await flushNote(p, input);
  assert.equal(again.outcome, 'up_to_date');
  assert.deepEqual(again.superseded, ['02_Architecture/adr-001-use-sqlite.md']);
  assert.deepEqual(snapshot(p.notesRoot), before);
});

test('setFrontmatterFields keeps CRLF, BOM, comments, block lists and other keys byte-for-byte', () => {
  const raw = '\uFEFF---\r\ntitle: A  # keep me\r\nstatus: >-\r\n  Accepted\r\n  long\r\ntags:\r\n- a\r\n- b\r\n---\r\n# A\r\n\r\nbody\r\n';
  const out = setFrontmatterFields(raw, { status: 'superseded', superseded_by: '[[b]]' });
  assert.equal(
    out,
    '\uFEFF---\r\ntitle: A  # keep me\r\nstatus: superseded\r\ntags:\r\n- a\r\n- b\r\nsuperseded_by: "[[b]]"\r\n---\r\n# A\r\n\r\nbody\r\n',
  );
  assert.throws(() => setFrontmatterFields('---\ntitle: [unclosed\n---\nx', { status: 's' }), (e: K0Error) => e.code === 'INVALID_ARGUMENT');
});

test('ambiguous ADR number in two folders prefers the decision folder, else asks for a path', async () => {
  const p = tempProject('k0maru-default');
  mkdirSync(join(p.notesRoot, 'archive'), { recursive: true });
  writeFileSync(join(p.notesRoot, 'archive', 'adr-001-old-thing.md'), '# Old thing\n');
  const r = await flushNote(p, { title: 'New', content: 'x', category: 'decision', supersedes: 'ADR-1', date: DATE });
  assert.deepEqual(r.superseded, ['02_Architecture/adr-001-use-sqlite.md']);
  writeFileSync(join(p.notesRoot, 'archive', 'adr-005-other.md'), '# Other\n');
  writeFileSync(join(p.notesRoot, 'archive', '005-again.md'), '# Again\n');
  await assert.rejects(
    flushNote(p, { title: 'Newer', content: 'x', category: 'log', supersedes: 'ADR-005', date: DATE }),
    (e: K0Error) => e.code === 'INVALID_ARGUMENT' && /ambiguous/.test(e.message),
  );
});
