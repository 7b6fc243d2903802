import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { flushNote } from '../../../src/core/flush';
import { parseNote } from '../../../src/core/vault/markdown';
import { read, snapshot, tempProject } from './helpers';

const DATE = '2026-11-30';

function frontmatterOf(text: string): Record<string, unknown> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(m, 'note starts with a frontmatter block');
  return parse(m[1]) as Record<string, unknown>;
}

test('a log goes to the log folder with a date slug, YAML frontmatter, H1 and a Related section', async () => {
  const p = tempProject('k0maru-default');
  const r = await flushNote(p, {
    title: 'Fixed the flaky checkout test',
    content: 'The retry loop raced the mock clock.\n',
    summary: 'Use fake timers',
    tags: ['#testing', 'checkout', 'testing'],
    related_notes: ['adr-001-use-sqlite', '[[Vision]]', 'Not Written Yet#Plan|the plan'],
    date: DATE,
  });
  assert.equal(r.outcome, 'created');
  assert.equal(r.path, '01_AI_Logs/2026-11-30-fixed-the-flaky-checkout-test.md');
  const text = read(p, r.path);
  assert.deepEqual(frontmatterOf(text), {
    title: 'Fixed the flaky checkout test',
    date: DATE,
    category: 'log',
    status: 'active',
    tags: ['testing', 'checkout'],
    summary: 'Use fake timers',
  });
  const note = parseNote(text, r.path);
  assert.equal(note.title, 'Fixed the flaky checkout test');
  assert.deepEqual(note.headings.map((h) => h.text), ['Fixed the flaky checkout test', 'Related']);
  assert.deepEqual(
    note.links.map((l) => [l.target, l.heading ?? null, l.alias ?? null]),
    [
      ['adr-001-use-sqlite', null, null],
      ['vision', null, null],
      ['Not Written Yet', 'Plan', 'the plan'],
    ],
  );
  assert.deepEqual(r.warnings, ['related note "Not Written Yet" not found; linked unresolved']);
});

test('identical content is up to date (no write); different content at the target becomes -v2, then -v3', async () => {
  const p = tempProject();
  const a = await flushNote(p, { title: 'Cache plan', content: 'A', category: 'concept', date: DATE });
  assert.deepEqual([a.outcome, a.path], ['created', '03_Cards/cache-plan.md']);
  const before = snapshot(p.notesRoot);
  const again = await flushNote(p, { title: 'Cache plan', content: 'A', category: 'card', date: DATE });
  assert.deepEqual([again.outcome, again.path], ['up_to_date', '03_Cards/cache-plan.md']);
  assert.deepEqual(snapshot(p.notesRoot), before, 'nothing written');
  const b = await flushNote(p, { title: 'Cache plan', content: 'B', category: 'concept', date: DATE });
  assert.deepEqual([b.outcome, b.path], ['versioned', '03_Cards/cache-plan-v2.md']);
  const c = await flushNote(p, { title: 'Cache plan', content: 'C', category: 'concept', date: DATE });
  assert.equal(c.path, '03_Cards/cache-plan-v3.md');
  const b2 = await flushNote(p, { title: 'Cache plan', content: 'B', category: 'concept', date: DATE });
  assert.deepEqual([b2.outcome, b2.path], ['up_to_date', '03_Cards/cache-plan-v2.md']);
  assert.match(read(p, a.path), /\nA\n$/);
  assert.match(read(p, b.path), /\nB\n$/);
});

test('a human file at the target is never overwritten', async () => {
  const p = tempProject();
  const human = '# My own notes\n\nhands off\n';
  writeFileSync(join(p.notesRoot, 'cache-plan.md'), human);
  const r = await flushNote(p, { title: 'Cache plan', content: 'x', category: 'custom/../..', date: DATE });
  assert.equal(r.category, 'custom');
  assert.equal(r.path, 'custom/cache-plan.md');
  writeFileSync(join(p.notesRoot, 'custom', 'other.md'), human);
  const r2 = await flushNote(p, { title: 'Other', content: 'x', category: 'custom', date: DATE });
  assert.deepEqual([r2.outcome, r2.path], ['versioned', 'custom/other-v2.md']);
  assert.equal(read(p, 'custom/other.md'), human);
});

test('decisions are numbered: next number for a new title, same number + -v2 for the same title', async () => {
  const p = tempProject('k0maru-default');
  const a = await flushNote(p, { title: 'Use Redis', content: 'x', category: 'decision', date: DATE });
  assert.equal(a.path, '02_Architecture/adr-002-use-redis.md');
  assert.equal(frontmatterOf(read(p, a.path)).status, 'accepted');
  const b = await flushNote(p, { title: 'Use Kafka', content: 'x', category: 'decision', date: DATE });
  assert.equal(b.path, '02_Architecture/adr-003-use-kafka.md');
  const a2 = await flushNote(p, { title: 'Use Redis', content: 'changed', category: 'decision', date: DATE });
  assert.deepEqual([a2.outcome, a2.path], ['versioned', '02_Architecture/adr-002-use-redis-v2.md']);
  const a3 = await flushNote(p, { title: 'Use Redis', content: 'x', category: 'decision', date: DATE });
  assert.deepEqual([a3.outcome, a3.path], ['up_to_date', '02_Architecture/adr-002-use-redis.md']);
});

test("content with its own frontmatter and H1: extra keys kept, explicit fields win, no second H1", async () => {
  const p = tempProject();
  const r = await flushNote(p, {
    title: 'Rust borrow fix',
    content: '---\nstatus: draft\nowner: ana\ntags: [rust]\n---\n# Rust borrow fix\r\n\r\nUse a scope.\r\n',
    category: 'skill',
    tags: ['e0502'],
    date: DATE,
  });
  const text = read(p, r.path);
  assert.ok(!text.includes('\r'), 'line endings normalised');
  const fm = frontmatterOf(text);
  assert.equal(fm.status, 'draft');
  assert.equal(fm.owner, 'ana');
  assert.deepEqual(fm.tags, ['e0502', 'rust']);
  assert.equal(fm.category, 'skill');
  assert.equal(text.match(/^# /gm)?.length, 1);
});

test('conventions drive the folder: explicit CONVENTIONS.md mapping in a bound layout', async () => {
  const p = tempProject('explicit');
  const r = await flushNote(p, { title: 'Event store retention', content: 'x', category: 'decision', date: DATE });
  assert.equal(r.path, 'records/ADR-0013-event-store-retention.md');
  assert.equal(r.rule.source, 'explicit');
  assert.ok(!existsSync(join(p.notesRoot, 'decisions', '0002-event-store-retention.md')));
});

test('bound Obsidian vault: init --vault, then a decision lands as "Title.md" in the nested decisions folder', async () => {
  const { mkdtempSync, cpSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { initVault } = await import('../../../src/core/vault/init');
  const { locateVault } = await import('../../../src/core/vault/paths');
  const { LAYOUTS } = await import('./helpers');
  const root = mkdtempSync(join(tmpdir(), 'k0bound-'));
  const vault = join(root, 'Vault');
  cpSync(join(LAYOUTS, 'obsidian'), vault, { recursive: true });
  initVault({ projectRoot: root, vault });
  const p = locateVault({ cwd: root, env: {} });
  assert.equal(p.notesRoot, vault);
  const r = await flushNote(p, { title: 'Use Adyen', content: 'Lower fees.', category: 'decision', supersedes: 'use stripe', date: DATE });
  assert.equal(r.path, 'Projects/Payments/Architecture Decisions/Use Adyen.md');
  assert.deepEqual(r.superseded, ['Projects/Payments/Architecture Decisions/Use Stripe.md']);
  assert.match(read(p, r.superseded[0]), /^---\nstatus: superseded\nsuperseded_by: "\[\[Use Adyen\]\]"\n---\n# Use Stripe\n$/);
  assert.deepEqual(frontmatterOf(read(p, r.path)).supersedes, ['[[Use Stripe]]']);
  assert.ok(!existsSync(join(root, '.k0maru', 'wiki')));
});
