import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAdrRules, readPattern, parseWindow } from '../../../src/core/guard/ruleParser';
import { validateRegex } from '../../../src/core/guard/pattern';
import { SQL_ADR } from './helpers';

test('parses kinds, literal and regex patterns, modifiers and ADR lines', () => {
  const a = parseAdrRules(SQL_ADR, '02_Architecture/adr-008.md', validateRegex);
  assert.equal(a.adrId, 'ADR-008');
  assert.equal(a.active, true);
  // The fenced example is pointed out (once, at its line), never compiled.
  assert.deepEqual(a.diagnostics.map((d) => [d.code, d.line]), [['rule.in-example', 16]]);
  assert.equal(a.rules.length, 5);
  const [sql, fetch, log, safety, py] = a.rules;
  assert.equal(sql.id, 'ADR-008-QuerySafety');
  assert.deepEqual(sql.pattern, { type: 'literal', source: 'SELECT * FROM', ignoreCase: false });
  assert.equal(sql.line, 9);
  assert.match(sql.remediation!, /explicit columns/);
  assert.equal(sql.text, 'deny: SELECT * FROM');
  assert.equal(fetch.pattern.type, 'regex');
  assert.equal(fetch.pattern.source, '\\bfetch\\(', 'raw line keeps the backslashes Markdown would drop');
  assert.deepEqual(fetch.include, ['src/**']);
  assert.deepEqual(fetch.exclude, ['**/*.test.ts']);
  assert.equal(fetch.id, 'ADR-008#2');
  assert.equal(log.kind, 'warn');
  assert.deepEqual(log.langs.sort(), ['js', 'ts', 'tsx']);
  assert.equal(safety.kind, 'require');
  assert.deepEqual(safety.when, { type: 'literal', source: 'unsafe {', ignoreCase: false });
  assert.deepEqual(safety.window, { kind: 'above', lines: 2 });
  assert.equal(py.window?.kind, 'statement');
  assert.ok(!a.rules.some((r) => r.pattern.source.includes('example')), 'fenced code is never a rule');
});

test('nested modifiers, flags and case-insensitivity', () => {
  const md = `# ADR 12\n\n## Guard\n\n- deny: \`eval(\`\n  - in: src/**, lib/**\n  - anywhere\n  - ignore-case\n  - because: eval runs arbitrary code\n- warn: /todo/i | no-strings\n* deny: \`a | b\` | id: PIPE\n`;
  const a = parseAdrRules(md, 'adr/0012-no-eval.md', validateRegex);
  assert.deepEqual(a.diagnostics, []);
  assert.equal(a.adrId, '0012-no-eval');
  const [ev, todo, pipe] = a.rules;
  assert.deepEqual(ev.include, ['src/**', 'lib/**']);
  assert.equal(ev.context, 'anywhere');
  assert.equal(ev.pattern.ignoreCase, true);
  assert.equal(ev.remediation, 'eval runs arbitrary code');
  assert.equal(todo.pattern.ignoreCase, true);
  assert.equal(todo.context, 'code-strict');
  assert.equal(pipe.pattern.source, 'a | b', 'a pipe inside backticks belongs to the pattern');
  assert.equal(pipe.id, 'PIPE');
});

test('malformed rules become diagnostics at the ADR line, never exceptions', () => {
  const md = [
    '---', 'status: accepted', '---', '# X', '', '## Rules', '',
    '- deny: /a(b/', // 8: bad regex
    '- deny:', // 9: empty
    '- require: `x`', // 10: no when
    '- forbid: foo', // 11: unknown kind
    '- deny: /unterminated', // 12
    '- deny: `ok` | bogus: 1', // 13: unknown modifier, rule kept
    '- deny: /(a)\\1/', // 14: backreference refused by RE2
    '- warn: `fine` | lang: klingon', // 15
    '- deny: /x/g', // 16: bad flag
    '- https://example.com/adr-guidance', // 17: a link, not a rule attempt
    '- deny:`tight`', // 18: no space after the colon is fine for a kind
  ].join('\n');
  const a = parseAdrRules(md, 'adr.md', validateRegex);
  const byLine = new Map(a.diagnostics.map((d) => [d.line, d.code]));
  assert.equal(byLine.get(8), 'rule.bad-regex');
  assert.equal(byLine.get(9), 'rule.empty-pattern');
  assert.equal(byLine.get(10), 'rule.missing-when');
  assert.equal(byLine.get(11), 'rule.unknown-kind');
  assert.equal(byLine.get(12), 'rule.unterminated');
  assert.equal(byLine.get(13), 'rule.bad-modifier');
  assert.equal(byLine.get(14), 'rule.bad-regex');
  assert.equal(byLine.get(15), 'rule.bad-modifier');
  assert.equal(byLine.get(16), 'rule.bad-regex');
  assert.equal(byLine.get(17), undefined);
  assert.equal(a.diagnostics.length, 9);
  assert.deepEqual(a.rules.map((r) => r.pattern.source), ['ok', 'fine', 'tight']);
  assert.equal(a.rules[0].id, 'adr#5', 'ids count deny/warn/require items, so a broken sibling does not renumber');
});

test('status: superseded / deprecated / rejected in any of the forms real ADRs use stop the rules', () => {
  const body = '\n## Invariants\n\n- deny: `x`\n';
  const cases: [string, boolean][] = [
    ['---\nstatus: superseded\n---\n# A' + body, false],
    ['---\nstatus: Deprecated\n---\n# A' + body, false],
    ['# A\n\n## Status\n\nSuperseded by [ADR-9](0009-x.md)\n' + body, false],
    ['# A\n\n## Status\n\n❌ Rejected\n' + body, false],
    ['# A\n\n- Status: superseded by [x](y.md)\n- Date: 2020\n' + body, false],
    ['# A\n\n## Status\n\n✅ Accepted\n' + body, true],
    ['# A\n\nStatus: Proposed\n' + body, true],
    ['---\nsuperseded_by: ADR-10\n---\n# A' + body, false],
    ['# A' + body, true],
  ];
  for (const [md, active] of cases) {
    const a = parseAdrRules(md, 'a.md');
    assert.equal(a.active, active, md);
    assert.equal(a.rules.length, 1);
  }
});

test('readPattern and windows', () => {
  assert.deepEqual(readPattern('``a`b`` | x').spec, { type: 'literal', source: 'a`b', ignoreCase: false });
  assert.equal(readPattern('/a\\/b[/]c/i | in: x').spec?.source, 'a\\/b[/]c');
  assert.deepEqual(parseWindow('above 5 lines'), { kind: 'above', lines: 5 });
  assert.deepEqual(parseWindow('around'), { kind: 'around', lines: 3 });
  assert.equal(parseWindow('sideways'), undefined);
});

test('the hook-path line scanner and the ParsedNote path read the same rules and status', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { parseNote } = await import('../../../src/core/vault/markdown');
  const { rulesFromNote } = await import('../../../src/core/guard/ruleParser');
  const dir = join(__dirname, '..', '..', 'fixtures', 'guard', 'vault', '02_Architecture');
  const sources: [string, string][] = readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]);
  sources.push(['sql.md', SQL_ADR], ['setext-free.md', '# T\n\n## Status\n\n**Deprecated**\n\n## Guard\n\n~~~\n- deny: `x`\n~~~\n- deny: `y`\n']);
  for (const [name, raw] of sources) {
    const light = parseAdrRules(raw, name, validateRegex);
    const full = rulesFromNote(parseNote(raw, name), name, validateRegex);
    assert.deepEqual(light, full, name);
  }
});

test('emphasis around the kind is formatting: **deny:** and *Require*: are rules; prose with a bold word is not', () => {
  const a = parseAdrRules('# A\n\n## Rules\n\n- **deny:** `a`\n- **Deny**: `b` (warning)\n- *require*: every `x(` passes `y`\n- **deny** is the default\n', 'adr/b.md', validateRegex);
  assert.deepEqual(a.diagnostics, []);
  assert.deepEqual(a.rules.map((r) => [r.kind, r.pattern.source, r.line]), [['deny', 'a', 5], ['warn', 'b', 6], ['require', 'y', 7]]);
});

test('rules headings in other languages; a heading that only starts with "Rules" is not one', () => {
  const a = parseAdrRules('# A\n\n## Regeln\n\n- deny: `a`\n\n## ルール\n\n- deny: `b`\n\n## Rulesets we considered\n\n- deny: `c`\n\n## Guard-rails\n\n- deny: `d`\n', 'adr/l.md', validateRegex);
  assert.deepEqual(a.rules.map((r) => r.pattern.source), ['a', 'b', 'd']);
});
