import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAdrRules, rulesFromNote } from '../../../src/core/guard/ruleParser';
import { validateRegex } from '../../../src/core/guard/pattern';
import { parseNote } from '../../../src/core/vault/markdown';
import { readScopeLine } from '../../../src/core/guard/scopeLines';
import type { GuardDiagnostic } from '../../../src/core/guard/types';

const CORPUS = join(__dirname, '..', '..', '..', '..', 'shared', 'corpus', 'adr-vault');

function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}${e.name}/`);
      else if (e.name.endsWith('.md')) out.push(`${rel}${e.name}`);
    }
  };
  walk(CORPUS, '');
  return out.sort();
}

/** Diagnostics this parser would raise on prose that is not a rule: on real ADR prose each is a false alarm. */
const PROSE_ALARMS = new Set<GuardDiagnostic['code']>(['rule.scope-unclear', 'rule.contradictory-scope', 'rule.in-example', 'rule.ambiguous', 'rule.bad-modifier', 'rule.missing-when']);

test('a 10,000-line ADR parses completely (rules at the end are read, fences and scopes still apply)', () => {
  const lines = ['---', 'status: accepted', '---', '# ADR-77: Big', '', '## Context', ''];
  for (let i = 0; i < 4000; i++) lines.push(`Paragraph ${i} with \`code\` and words; applies to nothing in particular.`);
  lines.push('', '## Rules', '', 'Applies to: `services/**`', '');
  for (let i = 0; i < 2000; i++) lines.push(`- deny: \`token_${i}(\``);
  lines.push('', '```', ...Array.from({ length: 1500 }, (_, i) => `- deny: \`example_${i}\``), '```', '');
  lines.push('- exclude: services/generated/**', '');
  while (lines.length < 9998) lines.push('Trailing prose line.');
  lines.push('- require: every `db.query(` call passes `timeout:`', '');
  assert.ok(lines.length >= 10000);
  const a = parseAdrRules(lines.join('\n'), 'adr/0077-big.md', validateRegex);
  const explicit = a.rules.filter((r) => r.origin !== 'inferred');
  assert.equal(explicit.length, 2001);
  assert.equal(explicit[0].pattern.source, 'token_0(');
  assert.equal(explicit[2000].when?.source, 'db.query(');
  for (const r of [explicit[0], explicit[1999], explicit[2000]]) assert.deepEqual(r.include, ['services/**']);
  // The `- exclude:` item after the fence still belongs to the 2,000-rule list; the last rule is another list.
  for (const r of [explicit[0], explicit[1999]]) assert.deepEqual(r.exclude, ['services/generated/**']);
  assert.deepEqual(explicit[2000].exclude, []);
  assert.ok(!explicit.some((r) => r.pattern.source.startsWith('example_')), 'fenced lines are never rules');
  assert.deepEqual(a.diagnostics.filter((d) => !d.inferred).map((d) => d.code), ['rule.in-example'], 'one diagnostic for the fence, not 1,500');
});

test('rules in a fenced example: never rules, one rule.in-example diagnostic at the fenced line, in both ADR readers', () => {
  const md = ['---', 'status: accepted', '---', '# How to write guard rules', '', '## Rules', '', 'Rules look like this:', '', '```markdown', '- deny: `print(` | because: use logging', '```', '', '~~~', 'plain text', '~~~', ''].join('\n');
  const light = parseAdrRules(md, 'adr/0037.md', validateRegex);
  const full = rulesFromNote(parseNote(md, 'adr/0037.md'), 'adr/0037.md', validateRegex);
  assert.deepEqual(light, full);
  assert.deepEqual(light.rules.filter((r) => r.origin !== 'inferred'), []);
  assert.deepEqual(light.diagnostics.map((d) => [d.code, d.line]), [['rule.in-example', 11]]);
});

test('a rules heading nested in a rules section is read once', () => {
  const a = parseAdrRules('# A\n\n## Rules\n\n- deny: `a`\n\n### Guard\n\n- deny: `b`\n', 'adr/n.md', validateRegex);
  assert.deepEqual(a.rules.map((r) => [r.id, r.pattern.source]), [['n#1', 'a'], ['n#2', 'b']]);
});

test('the 380 real ADRs of the corpus: no crash, no explicit rule, no false alarm — also with their Decision section read as a rules section', () => {
  const files = corpusFiles();
  assert.ok(files.length >= 380, `expected the 380-ADR corpus at ${CORPUS}, found ${files.length}`);
  let asRules = 0;
  let proseLines = 0;
  for (const rel of files) {
    const raw = readFileSync(join(CORPUS, rel), 'utf8');
    const a = parseAdrRules(raw, rel, validateRegex);
    assert.deepEqual(a.rules.filter((r) => r.origin !== 'inferred'), [], rel);
    assert.deepEqual(a.diagnostics.filter((d) => !d.inferred && PROSE_ALARMS.has(d.code)), [], rel);
    // Harder: pretend every Decision section were the rules section. Prose bullets and paragraphs there must
    // give no rule, no scope and no scope/sentence diagnostic.
    const renamed = raw.replace(/^(#{1,6}[ \t]+)(Decision(?: Outcome)?)[ \t]*$/gim, '$1Rules');
    if (renamed !== raw) {
      asRules++;
      const b = parseAdrRules(renamed, rel, validateRegex);
      assert.deepEqual(b.rules.filter((r) => r.origin !== 'inferred'), [], rel);
      assert.deepEqual(b.diagnostics.filter((d) => !d.inferred && PROSE_ALARMS.has(d.code)), [], rel);
    }
    for (const line of raw.split('\n')) {
      proseLines++;
      const s = readScopeLine(line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, ''));
      assert.equal(s, undefined, `${rel}: '${line}' read as a scope`);
    }
  }
  assert.ok(asRules > 250, `only ${asRules} corpus ADRs have a Decision section`);
  assert.ok(proseLines > 20000);
});
