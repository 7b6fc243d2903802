import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardCheck } from '../../../src/core/guard/check';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { readRequireSentence } from '../../../src/core/guard/sentenceRequire';
import { makeRepo } from './helpers';

const adr = (body: string) => `---\nstatus: accepted\n---\n# ADR-9: Gaps\n\n## Rules\n\n${body}\n`;
const brief = (s: string) => readRequireSentence(s).rules.map((r) => `${r.companionText} <- ${r.triggerText} @${r.window.kind}${'lines' in r.window ? r.window.lines : ''}`);

test('before / after X: X is the trigger, the other span must sit above / below it', () => {
  assert.deepEqual(brief('`openTx()` before `commitTx()`'), ['openTx() <- commitTx() @above3']);
  assert.deepEqual(brief('a `# noqa-reason:` comment before every `# noqa`'), ['# noqa-reason: <- # noqa @above3']);
  assert.deepEqual(brief('`close(fd)` after `open(path`'), ['close(fd) <- open(path @below3']);
  assert.deepEqual(brief('`release()` within 8 lines after each `acquire()`'), ['release() <- acquire() @below8']);
});

test('a bare before / after next to an explicit position only orders the trigger; the explicit position is the window', () => {
  assert.deepEqual(brief('`initLogger()` in the file before any `log.info(`'), ['initLogger() <- log.info( @file']);
  // Two explicit positions still refuse to guess.
  assert.match(readRequireSentence('`a()` on the line directly above and in the file before `b()`').error ?? '', /two positions/);
});

test('two Applies to lines over the same list with no file in common: contradictory-scope at the later line, fires nowhere', () => {
  const out = parseAdrRules(adr('Applies to: `ios/**/*.swift`\nApplies to: `android/**/*.kt`\n\n- deny: `print(`'), 'gaps.md');
  const d = out.diagnostics.filter((x) => x.code === 'rule.contradictory-scope');
  assert.ok(d.some((x) => x.line === 9), JSON.stringify(out.diagnostics));
  const r = out.rules[0];
  assert.deepEqual([r.include, r.within], [['ios/**/*.swift'], [['android/**/*.kt']]]);
});

test('an Applies to line and a Does not apply to line over the same paths: contradictory-scope at the exclusion line', () => {
  const out = parseAdrRules(adr('Applies to `db/**`.\nDoes not apply to `db/**`.\n\n- deny: `DROP TABLE`'), 'gaps.md');
  assert.ok(out.diagnostics.some((x) => x.code === 'rule.contradictory-scope' && x.line === 9), JSON.stringify(out.diagnostics));
});

test('two scope lines that overlap narrow each other (no diagnostic); lines over different lists each govern their own', () => {
  const narrowed = parseAdrRules(adr('Applies to: `cmd/**`\nOnly in `*.go` files.\n\n- deny: `os.Exit(`'), 'gaps.md');
  assert.deepEqual(narrowed.diagnostics, []);
  assert.deepEqual([narrowed.rules[0].include, narrowed.rules[0].within], [['cmd/**'], [['*.go']]]);
  const split = parseAdrRules(adr('Applies to: `cmd/**`\n\n- deny: `os.Exit(`\n\nApplies to: `web/**`\n\n- deny: `alert(`'), 'gaps.md');
  assert.deepEqual(split.diagnostics, []);
  assert.deepEqual(split.rules.map((r) => r.include), [['cmd/**'], ['web/**']]);
});

test('k0maru guard itself reports a scope that matches no file, with the ADR line, and never blocks for it', async () => {
  const r = makeRepo({
    '.k0maru/wiki/02_Architecture/adr-9.md': adr('Applies to: `scr/**/*.ts`\n\n- deny: `eval(`'),
    'src/a.ts': 'export {};\n',
    '.gitignore': '.k0maru/index.db*\n',
  });
  try {
    r.commit('init');
    r.write('src/a.ts', 'eval("1");\nexport {};\n');
    r.git('add', '-A');
    const res = await guardCheck({ cwd: r.root, staged: true, cache: null });
    assert.equal(res.ok, true);
    assert.deepEqual(res.violations, []);
    assert.deepEqual(res.diagnostics.map((d) => `${d.code} ${d.adrPath}:${d.line}`), ['rule.scope-matches-nothing 02_Architecture/adr-9.md:8']);
  } finally {
    r.dispose();
  }
});
