import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNote } from '../../../src/core/vault/markdown';
import { extractStatus } from '../../../src/core/vault/status';

test('frontmatter fields, title and tags are read', () => {
  const n = parseNote('---\ntitle: ADR 7\nstatus: accepted\ntags: [Redis, "#locks"]\ndate: 2026-01-02\n---\n# Heading\nText #inline-tag\n', 'x.md');
  assert.equal(n.title, 'ADR 7');
  assert.equal(n.frontmatter.status, 'accepted');
  assert.deepEqual(n.tags.sort(), ['inline-tag', 'locks', 'redis']);
  assert.equal(n.headings[0].line, 7);
});

test('every WikiLink form is parsed with its file line; code is never a link', () => {
  const src = ['# T', 'See [[Note A]], [[b/Note B|alias]] and [[C#Part]].', '![[diagram.png]]', '', '```', '[[in-code]]', '```', 'and `[[inline-code]]` too'].join('\n');
  const n = parseNote(src, 't.md');
  assert.deepEqual(
    n.links.map((l) => [l.target, l.alias ?? null, l.heading ?? null, l.embed, l.line]),
    [
      ['Note A', null, null, false, 2],
      ['b/Note B', 'alias', null, false, 2],
      ['C', null, 'Part', false, 2],
      ['diagram.png', null, null, true, 3],
    ],
  );
});

test('invalid YAML frontmatter is reported with its file line and indexed as body', () => {
  const n = parseNote('---\ntitle: ok\nbad: [unclosed\n---\nBody text here\n', 'bad.md');
  assert.ok(n.frontmatterError);
  assert.ok(n.frontmatterError!.line >= 2 && n.frontmatterError!.line <= 4, `line ${n.frontmatterError!.line}`);
  assert.deepEqual(n.frontmatter, {});
  assert.ok(n.blocks.some((b) => b.text.includes('Body text here')));
  assert.ok(n.blocks.some((b) => b.text.includes('bad: [unclosed')), 'the broken block stays searchable');
});

test('CRLF line endings and a BOM parse like LF', () => {
  const lf = parseNote('---\ntitle: X\n---\n# H\nline [[L]]\n', 'a.md');
  const crlf = parseNote('\uFEFF---\r\ntitle: X\r\n---\r\n# H\r\nline [[L]]\r\n', 'a.md');
  assert.deepEqual(crlf.frontmatter, lf.frontmatter);
  assert.deepEqual(crlf.links, lf.links);
  assert.deepEqual(crlf.headings, lf.headings);
});

test('block text keeps the raw Markdown so exact symbols survive', () => {
  const n = parseNote('# Rules\n- deny: /fetch\\(/ in **/*.go\n\nUse `Option<&mut T>` here.\n', 'r.md');
  assert.ok(n.blocks.some((b) => b.text.includes('/fetch\\(/ in **/*.go')));
  assert.ok(n.blocks.some((b) => b.text.includes('Option<&mut T>')));
});

test('status comes from frontmatter, a Status section or a Status: line', () => {
  assert.equal(extractStatus(parseNote('---\nstatus: Superseded\n---\n', 'a.md')), 'Superseded');
  assert.equal(extractStatus(parseNote('# ADR 3\n\n## Status\n\nSuperseded by [[ADR-9]]\n\n## Context\nx\n', 'a.md')), 'Superseded by [[ADR-9]]');
  assert.equal(extractStatus(parseNote('# ADR 3\n\n**Status:** ✅ Accepted\n', 'a.md')), 'Accepted');
  assert.equal(extractStatus(parseNote('# Just a note\n', 'a.md')), undefined);
});

test('Markdown links to notes count as links, made vault-relative; URLs, images and escapes do not', () => {
  const src = ['See [ADR 2](../adr/0002-use-postgres.md#decision) and [the runbook](./runbooks/deploy%20app.md "Deploy").', 'Not [a site](https://example.com/x.md), not ![img](pic.png), not [up](../../../outside.md).'].join('\n');
  const n = parseNote(src, 'docs/notes/today.md');
  assert.deepEqual(
    n.links.map((l) => [l.kind, l.target, l.heading ?? null, l.line]),
    [
      ['markdown', 'docs/adr/0002-use-postgres.md', 'decision', 1],
      ['markdown', 'docs/notes/runbooks/deploy app.md', null, 1],
    ],
  );
});
