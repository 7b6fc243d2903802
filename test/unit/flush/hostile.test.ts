import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { flushNote, MAX_CONTENT_BYTES } from '../../../src/core/flush';
import { K0Error } from '../../../src/core/errors';
import { read, snapshot, tempProject } from './helpers';

const DATE = '2026-11-30';
const code = (c: string) => (e: unknown) => e instanceof K0Error && e.code === c;

/** Everything under the project root's parent that is not ours stays as it was. */
function outsideListing(root: string): string[] {
  return readdirSync(dirname(root)).filter((n) => n === 'x.md' || n === 'x');
}

test('title "../../x" is slugified and stays inside its folder', async () => {
  const p = tempProject();
  const r = await flushNote(p, { title: '../../x', content: 'y', category: '../../etc', date: DATE });
  assert.equal(r.path, 'etc/x.md');
  assert.ok(r.absPath.startsWith(p.notesRoot + '/'));
  assert.deepEqual(outsideListing(p.projectRoot), []);
  const r2 = await flushNote(p, { title: '/etc/passwd', content: 'y', category: 'log', date: DATE });
  assert.equal(r2.path, '01_AI_Logs/2026-11-30-etc-passwd.md');
});

test('supersedes "../../etc/passwd" or an absolute path is PATH_OUTSIDE_VAULT and writes nothing', async () => {
  const p = tempProject('k0maru-default');
  const before = snapshot(p.notesRoot);
  for (const ref of ['../../etc/passwd', '/etc/passwd', '02_Architecture/../../../x.md', '02_Architecture/../00_Meta/vision']) {
    await assert.rejects(flushNote(p, { title: 'T', content: 'c', supersedes: ref, date: DATE }), code('PATH_OUTSIDE_VAULT'), ref);
  }
  await assert.rejects(flushNote(p, { title: 'T', content: 'c', supersedes: 'a\0b', date: DATE }), code('INVALID_ARGUMENT'), 'NUL');
  assert.deepEqual(snapshot(p.notesRoot), before);
});

test('a symlinked note pointing outside the vault is never edited', async () => {
  const p = tempProject();
  const outside = join(p.projectRoot, 'outside.md');
  writeFileSync(outside, '# Outside\n');
  symlinkSync(outside, join(p.notesRoot, 'linked.md'));
  await assert.rejects(flushNote(p, { title: 'T', content: 'c', supersedes: 'linked', date: DATE }), code('PATH_OUTSIDE_VAULT'));
});

test('related_notes with "]]", "[[" inside, newlines or control characters: INVALID_ARGUMENT, nothing written', async () => {
  const p = tempProject();
  for (const bad of ['a]]b', 'x]] [[evil', 'line\nbreak', '[[a]]]]', 'bell\u0007']) {
    await assert.rejects(flushNote(p, { title: 'T', content: 'c', related_notes: [bad], date: DATE }), code('INVALID_ARGUMENT'), JSON.stringify(bad));
  }
  await assert.rejects(flushNote(p, { title: 'T', content: 'c', related_notes: ['../../secret'], date: DATE }), code('PATH_OUTSIDE_VAULT'));
  await assert.rejects(flushNote(p, { title: 'T', content: 'c', supersedes: 'x]]\n---\nstatus: pwned', date: DATE }), code('INVALID_ARGUMENT'));
  assert.deepEqual([...snapshot(p.notesRoot).keys()], []);
});

test('content over the 1 MiB limit is FILE_TOO_LARGE (10 MB tried); exactly at the limit is accepted', async () => {
  const p = tempProject();
  await assert.rejects(flushNote(p, { title: 'Big', content: 'x'.repeat(10 * 1024 * 1024), date: DATE }), code('FILE_TOO_LARGE'));
  await assert.rejects(flushNote(p, { title: 'Big', content: 'é'.repeat(MAX_CONTENT_BYTES / 2 + 1), date: DATE }), code('FILE_TOO_LARGE'), 'limit counts UTF-8 bytes');
  assert.deepEqual([...snapshot(p.notesRoot).keys()], []);
  const ok = await flushNote(p, { title: 'Big', content: 'x'.repeat(MAX_CONTENT_BYTES), date: DATE });
  assert.equal(ok.outcome, 'created');
});

test('empty or non-string fields are INVALID_ARGUMENT', async () => {
  const p = tempProject();
  const bad: unknown[] = [
    { title: '', content: 'c' },
    { title: '  \n\t ', content: 'c' },
    { content: 'c' },
    { title: 'T' },
    { title: 'T', content: 'c', tags: 'not-a-list-but-ok-as-one' }, // accepted: a single string is one tag
    { title: 'T', content: 'c', tags: [1, 2] },
    { title: 'T', content: 'c', date: '30/11/2026' },
    { title: 'T', content: 'c', supersedes: [42] },
    { title: 'x'.repeat(301), content: 'c' },
  ];
  const outcomes: string[] = [];
  for (const input of bad) {
    try {
      await flushNote(p, input as never);
      outcomes.push('ok');
    } catch (e) {
      outcomes.push((e as K0Error).code);
    }
  }
  assert.deepEqual(outcomes, ['INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'ok', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
});

test('YAML-hostile title and summary round-trip as data, not as frontmatter structure', async () => {
  const p = tempProject();
  const title = 'status: superseded\n---\n# injected';
  const r = await flushNote(p, { title, content: '---\n', summary: 'a: b\n---\nc', tags: ['x: y', '- z'], date: DATE });
  const text = read(p, r.path);
  const fmEnd = text.indexOf('\n---\n', 4);
  const block = text.slice(4, fmEnd);
  assert.ok(!/^status: superseded$/m.test(block));
  assert.match(block, /^status: active$/m);
  assert.match(block, /^title: "?status: superseded --- # injected"?$/m);
});

test('a title that only exists inside a note (frontmatter title) is found by the slow path', async () => {
  const p = tempProject();
  mkdirSync(join(p.notesRoot, 'misc'), { recursive: true });
  writeFileSync(join(p.notesRoot, 'misc', 'n1.md'), '---\ntitle: Payment Locking\n---\nbody\n');
  writeFileSync(join(p.notesRoot, 'misc', 'n2.md'), '# 3. Queue Retry Policy\n\nbody\n');
  const r = await flushNote(p, { title: 'New', content: 'c', supersedes: ['payment locking', 'Queue Retry Policy'], date: DATE });
  assert.deepEqual(r.superseded, ['misc/n1.md', 'misc/n2.md']);
});

test('a category folder that is a symlink out of the vault is refused; a file blocking the folder is IO_ERROR', async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const p = tempProject();
  const elsewhere = mkdtempSync(join(tmpdir(), 'k0elsewhere-'));
  symlinkSync(elsewhere, join(p.notesRoot, '01_AI_Logs'));
  await assert.rejects(flushNote(p, { title: 'Escape', content: 'x', date: DATE }), code('PATH_OUTSIDE_VAULT'));
  assert.deepEqual(readdirSync(elsewhere), []);
  writeFileSync(join(p.notesRoot, '03_Cards'), 'a file where the folder should be');
  await assert.rejects(flushNote(p, { title: 'Blocked', content: 'x', category: 'card', date: DATE }), code('IO_ERROR'));
});

test('an old note that is not valid UTF-8 is not edited (decoding would change its bytes)', async () => {
  const p = tempProject();
  const bytes = Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]); // "# Café" in Latin-1
  writeFileSync(join(p.notesRoot, 'latin1.md'), bytes);
  await assert.rejects(flushNote(p, { title: 'New', content: 'x', supersedes: 'latin1', date: DATE }), code('INVALID_ARGUMENT'));
  assert.deepEqual([...snapshot(p.notesRoot).keys()], ['latin1.md']);
});
