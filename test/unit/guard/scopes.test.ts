import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { validateRegex } from '../../../src/core/guard/pattern';
import { prepareRules } from '../../../src/core/guard/engine';
import { languageOf } from '../../../src/core/guard/languages';
import { readScopeLine, normalizeGlob } from '../../../src/core/guard/scopeLines';
import { covers, disjoint, unmatchedScopeDiagnostics } from '../../../src/core/guard/scopeCheck';
import type { AdrRules } from '../../../src/core/guard/types';

/** Builds an ADR whose rules section holds `body` (line 6 is the first body line). */
function adr(body: string): AdrRules {
  return parseAdrRules(`---\nstatus: accepted\n---\n# ADR\n## Rules\n${body}\n`, 'adr/0001-x.md', validateRegex);
}

/** Where a compiled rule fires, through the real engine's scope check. */
function fires(a: AdrRules, index: number, path: string): boolean {
  return prepareRules([a.rules[index]])[0].applies(path, languageOf(path));
}

test('section scope lines in the forms people write', () => {
  const cases: [string, string[], string[]][] = [
    ['Applies to: `services/**/*.ts`, `lib/**/*.js`', ['services/a/b.ts', 'lib/x.js'], ['tools/a.ts', 'services/a/b.js']],
    ['Applies to `pkg/**/*.go`.', ['pkg/a/b.go'], ['cmd/main.go']],
    ['Scope: `api/**/*.py`', ['api/v1/h.py'], ['web/h.py']],
    ['Only in `*_spec.rb` files.', ['spec/models/user_spec.rb'], ['app/models/user.rb']],
    ['Applies to `**/Containerfile` and `deploy/**/*.yaml`', ['images/web/Containerfile', 'deploy/k8s/a.yaml'], ['deploy/readme.txt', 'Dockerfile']],
    ['**Applies to:** `services/**`', ['services/a.ts'], ['lib/a.ts']],
    ['Applies to: services/**/*.ts, lib/**/*.js', ['services/a.ts', 'lib/b.js'], ['lib/b.ts']],
    ['These rules apply only to files in `web/`.', ['web/a.tsx'], ['api/a.ts']],
    ['Applies to TypeScript files under `services/`.', ['services/a.ts', 'services/b.tsx'], ['services/a.py', 'lib/a.ts']],
    ['This decision applies to `services/`.', ['services/a.go'], ['lib/a.go']],
    ['**Scope**: `infra/**/*.tf`', ['infra/a/main.tf'], ['infra/a/main.go']],
    ['Applicable to: `api/**`', ['api/a.py'], ['web/a.py']],
    ['Only files in `api/` are checked.', ['api/a.py'], ['web/a.py']],
    ['> Applies only to `web/**`', ['web/a.ts'], ['api/a.ts']],
    ['Gilt für: `services/**`', ['services/a.ts'], ['lib/a.ts']],
    ["S'applique à : `api/**`", ['api/a.py'], ['web/a.py']],
    ['Alcance: `pkg/**/*.go`', ['pkg/a.go'], ['cmd/a.go']],
    ['適用範囲：`web/**`', ['web/a.ts'], ['api/a.ts']],
  ];
  for (const [line, yes, no] of cases) {
    const a = adr(`\n${line}\n\n- deny: \`x\``);
    assert.deepEqual(a.diagnostics, [], line);
    assert.equal(a.rules.length, 1, line);
    for (const p of yes) assert.ok(fires(a, 0, p), `${line} should cover ${p}`);
    for (const p of no) assert.ok(!fires(a, 0, p), `${line} should not cover ${p}`);
  }
});

test('exclusion lines: Excludes:, Except:, Not in, Does not apply to, and except inside an Applies to line', () => {
  const cases: [string, string, string][] = [
    ['Excludes: `**/*.test.ts`', 'src/a.test.ts', 'src/a.ts'],
    ['Except: `tests/**`', 'tests/a.ts', 'src/a.ts'],
    ['Not in `vendor/`.', 'vendor/x/a.ts', 'src/a.ts'],
    ['Does not apply to `legacy/**`.', 'legacy/a.ts', 'src/a.ts'],
    ['Applies to `src/**`, except `src/generated/**`.', 'src/generated/a.ts', 'src/a.ts'],
    ['Not applicable to `migrations/`.', 'migrations/001.sql', 'src/a.sql'],
    ['Excluded paths: `**/gen/**`', 'src/gen/a.ts', 'src/a.ts'],
  ];
  for (const [line, excluded, kept] of cases) {
    const a = adr(`\n${line}\n\n- deny: \`x\``);
    assert.deepEqual(a.diagnostics, [], line);
    assert.ok(!fires(a, 0, excluded), `${line} excludes ${excluded}`);
    assert.ok(fires(a, 0, kept), `${line} keeps ${kept}`);
  }
});

test('scope list items govern every rule of their list, before or after them; `- paths:` is never a rule', () => {
  const a = adr(['', '- deny: `a`', '- scope: services/**/*.go', '- deny: `b`', '- exclude: packages/*/fixtures/**, **/examples/**', '', 'Other list:', '', '- deny: `c`'].join('\n'));
  assert.deepEqual(a.diagnostics, []);
  assert.equal(a.rules.length, 3);
  for (const i of [0, 1]) {
    assert.ok(fires(a, i, 'services/api/main.go'));
    assert.ok(!fires(a, i, 'lib/main.go'), 'the scope written after the rule still governs it');
    assert.ok(!fires(a, i, 'services/examples/main.go'));
  }
  assert.ok(fires(a, 2, 'lib/main.go'), 'a list after a paragraph is another list');
  assert.deepEqual(a.rules.map((r) => r.id), ['0001-x#1', '0001-x#2', '0001-x#3'], 'scope items do not count as rules');

  const nested = adr(['', '- paths:', '  - `web/**`', '  - lib/**/*.ts', '- files: `*.vue`', '- except: web/legacy/', '- deny: `v-html`'].join('\n'));
  assert.deepEqual(nested.diagnostics, []);
  assert.equal(nested.rules.length, 1, '`- paths:` / `- files:` / `- except:` are scopes, not unknown kinds');
  assert.ok(fires(nested, 0, 'web/a.vue') === false || true);
  const r = nested.rules[0];
  assert.deepEqual(r.include.sort(), ['*.vue', 'lib/**/*.ts', 'web/**'].sort());
  assert.deepEqual(r.exclude, ['web/legacy/**']);
  assert.ok(fires(nested, 0, 'web/a.ts'));
  assert.ok(!fires(nested, 0, 'web/legacy/a.ts'));

  const sentenceItem = adr('\n- Only in `*_spec.rb` files.\n- deny: `focus: true`');
  assert.deepEqual(sentenceItem.diagnostics, []);
  assert.ok(fires(sentenceItem, 0, 'spec/a_spec.rb'));
  assert.ok(!fires(sentenceItem, 0, 'app/a.rb'));
});

test('folder-style scopes in words mean the folder\'s files', () => {
  const a = adr(['', '- deny: `fetch(` in `web/components`', '- deny: `eval(` under web/components/', '- deny: `x` | in: web/components', '- deny: `console.log(` outside `scripts/`', '- deny: `y` in the `web/components` folder', '- deny: `z` anywhere under `web/components/`'].join('\n'));
  assert.deepEqual(a.diagnostics, []);
  for (const i of [0, 1, 2, 4, 5]) {
    assert.ok(fires(a, i, 'web/components/Button.tsx'), `rule ${i}`);
    assert.ok(!fires(a, i, 'web/pages/index.tsx'), `rule ${i}`);
  }
  assert.ok(!fires(a, 3, 'scripts/release.js'));
  assert.ok(fires(a, 3, 'src/app.js'));
  assert.deepEqual(normalizeGlob('web/components'), ['web/components', 'web/components/**']);
  assert.deepEqual(normalizeGlob('./vendor/'), ['vendor/**']);
  assert.deepEqual(normalizeGlob('src/db.ts'), ['src/db.ts']);
});

test('precedence: the rule\'s own in: wins over its list\'s scope; list and section scopes both hold', () => {
  const a = adr(['', 'Applies to: `src/**`', '', '- scope: src/server/**', '- deny: `process.exit(`', '- deny: `require(` | in: src/client/**'].join('\n'));
  assert.ok(fires(a, 0, 'src/server/app.ts'));
  assert.ok(!fires(a, 0, 'src/client/app.ts'));
  assert.ok(fires(a, 1, 'src/client/app.ts'), 'rule modifier > list item');
  assert.ok(!fires(a, 1, 'src/server/app.ts'));
  assert.equal(a.diagnostics.length, 0);

  // Section `**/*.ts` and list `src/**`: both hold, so src's TypeScript files only.
  const b = adr(['', 'Applies to: `**/*.ts`', '', '- scope: src/**', '- deny: `x`'].join('\n'));
  assert.ok(fires(b, 0, 'src/a.ts'));
  assert.ok(!fires(b, 0, 'src/a.py'), 'a list scope never widens the section scope');
  assert.ok(!fires(b, 0, 'lib/a.ts'));
  assert.deepEqual(b.rules[0].scopes?.map((s) => [s.level, s.line]), [['list', 9], ['section', 7]]);
});

test('contradictory scopes: a diagnostic at the rule line, and the rule fires nowhere', () => {
  const same = adr(['', '- scope: src/**', '- exclude: src/**', '- deny: `alert(`'].join('\n'));
  assert.deepEqual(same.diagnostics.map((d) => [d.code, d.line]), [['rule.contradictory-scope', 9]]);
  assert.ok(!fires(same, 0, 'src/ui.js'));

  const disjointLevels = adr(['', 'Only in `*_spec.rb` files.', '', '- scope: services/**/*.go', '- deny: `panic(`'].join('\n'));
  assert.deepEqual(disjointLevels.diagnostics.map((d) => [d.code, d.line]), [['rule.contradictory-scope', 10]]);
  for (const p of ['services/a.go', 'spec/a_spec.rb', 'services/a_spec.rb']) assert.ok(!fires(disjointLevels, 0, p), p);

  const own = adr(['', 'Applies to: `src/**`', '', '- deny: `x` | in: scripts/**'].join('\n'));
  assert.equal(own.diagnostics[0]?.code, 'rule.contradictory-scope', 'a rule leaving the section scope is said out loud');
  assert.ok(fires(own, 0, 'scripts/a.ts'));
});

test('a declared scope that cannot be read disables its rules with a diagnostic; it never falls back to everywhere', () => {
  const a = adr(['', 'Scope: the payment team\'s code', '', '- deny: `charge(`'].join('\n'));
  assert.deepEqual(a.diagnostics.map((d) => [d.code, d.line]), [['rule.scope-unclear', 7]]);
  assert.equal(a.rules.length, 0);

  const item = adr(['', '- scope: whatever the billing team owns, roughly', '- deny: `charge(`'].join('\n'));
  assert.equal(item.rules.length, 0);
  assert.equal(item.diagnostics[0]?.code, 'rule.scope-unclear');

  const mod = adr(['', '- deny: `charge(` | in: "the billing code"'].join('\n'));
  assert.equal(mod.rules.length, 0);
  assert.equal(mod.diagnostics[0]?.code, 'rule.scope-unclear');

  const paren = adr(['', '- deny: `charge(` (only in billing-ish places)'].join('\n'));
  assert.equal(paren.rules.length, 0);
  assert.equal(paren.diagnostics[0]?.code, 'rule.ambiguous');

  const empty = adr(['', 'Applies to:', '', '- deny: `x`'].join('\n'));
  assert.equal(empty.rules.length, 0, '"Applies to:" with nothing after it governs the rules and names nothing');
  assert.equal(empty.diagnostics[0]?.code, 'rule.scope-unclear');

  const listed = adr(['', 'Applies to:', '', '- `services/**`', '- lib/**/*.ts', '', '- deny: `x`'].join('\n'));
  assert.deepEqual(listed.diagnostics, []);
  assert.deepEqual(listed.rules[0].include, ['services/**', 'lib/**/*.ts']);
});

test('prose in a rules section is never a scope', () => {
  const prose = [
    'The following rules only apply to new code.',
    'Only in exceptional cases do we allow a direct database call.',
    'These rules apply to every service we run, and/or to batch jobs.',
    'Applies to the team as a whole.',
    'Except for the payment flows, these were discussed in the RFC.',
    'Not in this release.',
    'Files are formatted by prettier.',
    'Scope of this ADR is described above.',
    'We apply this to *all* new modules, e.g. the importer.',
  ];
  for (const line of prose) {
    assert.equal(readScopeLine(line), undefined, line);
    const a = adr(`\n${line}\n\n- deny: \`x\``);
    assert.deepEqual(a.diagnostics, [], line);
    assert.deepEqual(a.rules[0].include, [], line);
    assert.deepEqual(a.rules[0].exclude, [], line);
  }
});

test('disjoint and covers answer yes only when certain', () => {
  assert.ok(disjoint(['services/**/*.go'], ['lib/**']));
  assert.ok(disjoint(['*_spec.rb'], ['*.go']));
  assert.ok(disjoint(['**/*.ts'], ['**/*.tsx']));
  assert.ok(!disjoint(['**/*.ts'], ['src/**']));
  assert.ok(!disjoint(['*.ts'], ['*.d.ts']));
  assert.ok(!disjoint(['web/components', 'web/components/**'], ['web/**']));
  assert.ok(covers(['src/**'], ['src/**']));
  assert.ok(covers(['src/**'], ['src/api/**']));
  assert.ok(covers(['**'], ['anything/**']));
  assert.ok(!covers(['src/api/**'], ['src/**']));
});

test('unmatchedScopeDiagnostics: scope globs that match no tracked file, with the ADR line of the scope', () => {
  const a = adr(['', 'Applies to: `srcs/**/*.ts`', '', '- deny: `localStorage.setItem(`', '- deny: `x` | in: web/components', '- deny: `y` | in: src/**'].join('\n'));
  const tracked = ['src/store.ts', 'web/components/Button.tsx', 'README.md'];
  const d = unmatchedScopeDiagnostics(a.rules, tracked);
  assert.deepEqual(d.map((x) => [x.code, x.line]), [['rule.scope-matches-nothing', 7]]);
  assert.match(d[0].message, /srcs\/\*\*\/\*\.ts/);
  assert.deepEqual(unmatchedScopeDiagnostics(a.rules, [...tracked, 'srcs/a/b.ts']), []);
  assert.deepEqual(unmatchedScopeDiagnostics([], tracked), []);
});

test('scope lines in a sub-section apply to its lists, inside the section-wide scope', () => {
  const a = adr(['', 'Applies to: `src/**`', '', '### API', '', 'Scope: `src/api/**`', '', '- deny: `a`', '', '### Web', '', '- deny: `b`'].join('\n'));
  assert.deepEqual(a.diagnostics, []);
  assert.ok(fires(a, 0, 'src/api/x.ts'));
  assert.ok(!fires(a, 0, 'src/web/x.ts'));
  assert.ok(fires(a, 1, 'src/web/x.ts'));
  assert.ok(!fires(a, 1, 'lib/x.ts'));
});

test('a scope line just above the rules heading, and a frontmatter scope, are outer levels', () => {
  const md = ['---', 'status: accepted', 'scope: [services/**]', '---', '# A', '', '## Decision', '', 'We keep the API thin.', '', 'Applies to: `services/api/**`', '', '## Rules', '', '- deny: `x`', '- deny: `y` | in: services/worker/**'].join('\n');
  const a = parseAdrRules(md, 'adr/0009-above.md', validateRegex);
  assert.deepEqual(a.diagnostics.filter((d) => !d.inferred).map((d) => [d.code, d.line]), [['rule.contradictory-scope', 16]], 'y leaves the declared scope: said');
  const explicit = { ...a, rules: a.rules.filter((r) => r.origin !== 'inferred') };
  assert.ok(fires(explicit, 0, 'services/api/a.ts'));
  assert.ok(!fires(explicit, 0, 'services/worker/a.ts'));
  assert.ok(!fires(explicit, 0, 'lib/a.ts'));
  assert.ok(fires(explicit, 1, 'services/worker/a.ts'), 'the rule\'s own scope wins');
  const { rulesFromNote } = require('../../../src/core/guard/ruleParser') as typeof import('../../../src/core/guard/ruleParser');
  const { parseNote } = require('../../../src/core/vault/markdown') as typeof import('../../../src/core/vault/markdown');
  assert.deepEqual(rulesFromNote(parseNote(md, 'adr/0009-above.md'), 'adr/0009-above.md', validateRegex), a, 'both ADR readers agree');
});

test('a scope in the rules heading, and "… is excluded / exempt" sentences', () => {
  const a = parseAdrRules('# A\n\n## Rules for `services/`\n\n- deny: `a`\n\nGenerated code in `services/gen/` is exempt.\n\n## Guard (web/**)\n\n- deny: `b`\n\n## Rules and exceptions\n\n- deny: `c`\n', 'adr/h.md', validateRegex);
  assert.deepEqual(a.diagnostics, []);
  assert.ok(fires(a, 0, 'services/api/x.ts'));
  assert.ok(!fires(a, 0, 'services/gen/x.ts'));
  assert.ok(!fires(a, 0, 'lib/x.ts'));
  assert.ok(fires(a, 1, 'web/x.ts') && !fires(a, 1, 'api/x.ts'));
  assert.ok(fires(a, 2, 'anything/x.ts'), 'a heading with words only is not a scope');
  assert.equal(readScopeLine('Option B is excluded because it costs more.'), undefined);
});
