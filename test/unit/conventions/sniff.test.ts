import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inferNaming, normalizeCategory, parseExplicit, slugify, sniffConventions, targetPathFor } from '../../../src/core/conventions';
import { titleFileName } from '../../../src/core/conventions/slug';

const LAYOUTS = join(__dirname, '..', '..', 'fixtures', 'layouts');
const sniff = (name: string) => sniffConventions(join(LAYOUTS, name), { projectRoot: join(LAYOUTS, name) });
const DAY = '2026-11-30';

test('Johnny Decimal: numbered folders by name, decisions live with the cards and continue ADR numbers', () => {
  const r = sniff('johnny-decimal');
  assert.equal(r.categoryFolders.log, '00_Logs');
  assert.equal(r.categoryFolders.concept, '20_Cards');
  assert.equal(r.categoryFolders.decision, '20_Cards');
  assert.equal(r.source.decision, 'heuristic');
  assert.equal(r.naming.decision, 'Numbered');
  assert.equal(r.naming.concept, 'SlugOnly', 'cards keep their slug names even beside numbered ADRs');
  assert.equal(r.source.skill, 'default');
  assert.equal(targetPathFor(r, 'decision', 'Use Kafka', DAY), '20_Cards/adr-009-use-kafka.md');
  assert.equal(targetPathFor(r, 'card', 'Backpressure', DAY), '20_Cards/backpressure.md');
  assert.equal(targetPathFor(r, 'log', 'Standup', DAY), '00_Logs/2026-11-30-standup.md');
});

test('flat docs/adr (adr-tools): 4-digit numbering continues; "adr" beats "architecture"; journal and skills found', () => {
  const r = sniff('flat-adr');
  assert.equal(r.categoryFolders.decision, 'docs/adr');
  assert.deepEqual(r.categories.decision.numbering, { prefix: '', width: 4, next: 3 });
  assert.equal(targetPathFor(r, 'decision', 'Use Kafka', DAY), 'docs/adr/0003-use-kafka.md');
  assert.equal(r.categoryFolders.log, 'journal');
  assert.equal(r.naming.log, 'DateSlug');
  assert.equal(r.categoryFolders.skill, 'skills');
  assert.equal(r.categoryFolders.concept, '03_Cards');
  assert.equal(r.source.concept, 'default');
});

test('our own layout is recognised, not defaulted', () => {
  const r = sniff('k0maru-default');
  assert.deepEqual([r.categoryFolders.decision, r.source.decision], ['02_Architecture', 'heuristic']);
  assert.deepEqual([r.categoryFolders.log, r.source.log], ['01_AI_Logs', 'heuristic']);
  assert.equal(targetPathFor(r, 'decision', 'Second', DAY), '02_Architecture/adr-002-second.md');
});

test('explicit mappings in CONVENTIONS.md win over directory heuristics; prose and code blocks are not mappings', () => {
  const r = sniff('explicit');
  assert.deepEqual([r.categoryFolders.decision, r.source.decision, r.categories.decision.namingSource], ['records', 'explicit', 'explicit']);
  assert.deepEqual(r.categories.decision.numbering, { prefix: 'ADR-', width: 4, next: 13 });
  assert.equal(targetPathFor(r, 'decision', 'Use Kafka', DAY), 'records/ADR-0013-use-kafka.md');
  assert.deepEqual([r.categoryFolders.log, r.naming.log], ['diary', 'DateSlug'], 'explicit naming beats the undated file in diary/');
  assert.equal(r.categoryFolders.incident, 'postmortems');
  assert.equal(targetPathFor(r, 'incident', 'DB outage', DAY), 'postmortems/db-outage.md');
  assert.equal(r.categoryFolders.concept, 'cards', 'not "ignored-in-code" from the fenced block');
  assert.equal(r.templatePath, 'Meta/Templates');
  assert.equal(r.categories.decision.template, 'Meta/Templates/adr.md');
});

test('.k0maru/rules.md beats AGENTS.md; a mapping that leaves the vault is ignored with a warning', () => {
  const root = mkdtempSync(join(tmpdir(), 'k0conv-'));
  const notes = join(root, '.k0maru', 'wiki');
  mkdirSync(join(notes, 'decisions'), { recursive: true });
  writeFileSync(join(root, '.k0maru', 'rules.md'), '# Rules\n\n- decision: adr-from-rules/\n- skill: ../../etc/\n');
  writeFileSync(join(root, 'AGENTS.md'), '# Agents\n\ndecision: adr-from-agents/\nlog -> agent-logs/\n');
  const r = sniffConventions(notes, { k0Dir: join(root, '.k0maru'), projectRoot: root });
  assert.equal(r.categoryFolders.decision, 'adr-from-rules');
  assert.equal(r.categoryFolders.log, 'agent-logs');
  assert.equal(r.categoryFolders.skill, '04_Skills');
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /outside the notes root/);
});

test('log4brains compact dates (YYYYMMDD-slug) are followed', () => {
  const r = sniff('log4brains');
  assert.equal(r.categoryFolders.decision, 'docs/adr');
  assert.equal(r.categories.decision.dateFormat, 'YYYYMMDD');
  assert.equal(targetPathFor(r, 'decision', 'Use Kafka', DAY), 'docs/adr/20261130-use-kafka.md');
});

test('Obsidian vault: templates.json folder, category templates, nested "Architecture Decisions", Daily notes', () => {
  const r = sniff('obsidian');
  assert.equal(r.categoryFolders.decision, 'Projects/Payments/Architecture Decisions');
  assert.equal(r.naming.decision, 'Title', '"Use Stripe.md": the vault names notes by their title');
  assert.equal(targetPathFor(r, 'decision', 'Use Kafka: why?', DAY), 'Projects/Payments/Architecture Decisions/Use Kafka why.md');
  assert.equal(targetPathFor(r, 'decision', '../../.hidden', DAY), 'Projects/Payments/Architecture Decisions/hidden.md');
  assert.equal(r.categoryFolders.log, 'Daily');
  assert.equal(r.templatePath, '_templates');
  assert.equal(r.categories.decision.template, '_templates/decision.md');
  assert.equal(r.categories.log.template, '_templates/daily.md');
});

test('an empty vault gets our defaults', () => {
  const r = sniffConventions(mkdtempSync(join(tmpdir(), 'k0empty-')));
  assert.deepEqual(r.categoryFolders, { decision: '02_Architecture', log: '01_AI_Logs', concept: '03_Cards', skill: '04_Skills' });
  assert.ok(Object.values(r.source).every((s) => s === 'default'));
  assert.equal(targetPathFor(r, 'decision', 'First', DAY), '02_Architecture/adr-001-first.md');
  assert.equal(targetPathFor(r, 'skill', 'Fix E0502', DAY), '04_Skills/fix-e0502.md');
});

test('inferNaming: majority wins, bare small numbers are titles not ADR numbers', () => {
  assert.equal(inferNaming(['2026-01-01-a.md', '2026-01-02-b.md', 'c.md'])?.naming, 'DateSlug');
  assert.equal(inferNaming(['3-things.md', 'other.md'])?.naming, 'SlugOnly');
  assert.deepEqual(inferNaming(['adr003-x.md', 'adr004-y.md'])?.numbering, { prefix: 'adr', width: 3, next: 5 });
  assert.equal(inferNaming(['Use Stripe.md', 'Retry Policy.md', 'notes.md'])?.naming, 'Title');
  assert.equal(inferNaming(['use-stripe.md', 'retry-policy.md', 'Readme Notes.md'])?.naming, 'SlugOnly');
  assert.equal(inferNaming([]), undefined);
});

test('parseExplicit accepts the documented forms', () => {
  const r = parseExplicit('- decisions → docs/adr/ (Numbered)\n* `log -> journal/`\nskills => playbooks/\nconcept: not a folder\n', 'X.md', { mappings: [] });
  assert.deepEqual(
    r.mappings.map((m) => [m.category, m.folder, m.naming ?? null]),
    [
      ['decision', 'docs/adr', 'Numbered'],
      ['log', 'journal', null],
      ['skill', 'playbooks', null],
    ],
  );
  assert.equal(r.mappings[0].origin, 'X.md:1');
});

test('slugify keeps every script, strips path syntax, never returns empty', () => {
  assert.equal(slugify('../../x'), 'x');
  assert.equal(slugify('Use Redis: a mutex / lock!'), 'use-redis-a-mutex-lock');
  assert.equal(slugify('ロックの設計'), 'ロックの設計');
  assert.equal(slugify('...'), 'note');
  assert.equal(slugify('CON'), 'con-note');
  assert.ok(slugify('x'.repeat(500)).length <= 80);
  assert.equal(titleFileName('a/b\\c: "d" <e> | f? #g ^h [[i]]'), 'a b c d e f g h i');
  assert.equal(titleFileName('...'), 'Untitled');
  assert.equal(titleFileName('nul'), 'nul note');
  assert.equal(normalizeCategory('Card'), 'concept');
  assert.equal(normalizeCategory('ADRs'), 'decision');
  assert.equal(normalizeCategory('../Post Mortem'), 'post-mortem');
});
