import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { explicitRuleInsertion, explicitRuleLine } from '../../../src/core/guard/explicitRule';
import { ruleKey } from '../../../src/core/guard/inferred';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import type { GuardRule } from '../../../src/core/guard/types';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { makeRepo } from './helpers';

const DECISION = `---
id: ADR-30
status: accepted
---
# ADR-30: Code we do not write

## Decision

Do not import \`lodash\` in \`packages/web\`; use the native array methods.
We will avoid \`React.FC\`.
\`console.log\` is allowed only in \`scripts/\`.
Never use \`SELECT *\`.
Do not add \`// eslint-disable\` comments.
Every \`router.get(\` handler must call \`requireAuth(\`.
Every \`innerHTML =\` must have a \`/* trusted */\` comment on the line directly above.
`;

const keyOf = (r: GuardRule) => [r.kind, ruleKey(r.pattern, r.include, r.exclude, r.when), r.context, JSON.stringify(r.window ?? null), r.langs.join()].join(' ');

test('every inferred rule written as an explicit line parses back to the same rule (pattern, scope, context, window)', () => {
  const inferred = parseAdrRules(DECISION, 'adr-30.md').rules.filter((r) => r.origin === 'inferred');
  assert.equal(inferred.length, 7);
  for (const r of inferred) {
    const line = explicitRuleLine(r);
    const back = parseAdrRules(`# X\n\n## Invariants\n\n${line}\n`, 'x.md');
    assert.deepEqual(back.diagnostics, [], line);
    assert.equal(back.rules.length, 1, line);
    assert.equal(keyOf(back.rules[0]), keyOf(r), line);
  }
});

test('written explicitly into the ADR itself, the inferred rule is gone (no duplicate); insertion goes into the guard section or a new one', () => {
  const adr = parseAdrRules(DECISION, 'adr-30.md');
  const fc = adr.rules.find((r) => r.text.startsWith('deny React.FC'))!;
  const ins = explicitRuleInsertion(DECISION, fc);
  const lines = DECISION.split('\n');
  assert.equal(ins.line, lines.length - 1, 'no guard section: appended at the end');
  assert.match(ins.text, /^\n## Invariants\n\n- deny: \/\\bReact\\.FC\\b\/ \| no-strings \| because: We will avoid `React\.FC`\.\n$/);
  lines.splice(ins.line, 0, ...ins.text.split('\n').slice(0, -1));
  const after = lines.join('\n');
  const again = parseAdrRules(after, 'adr-30.md');
  assert.equal(again.rules.filter((r) => r.text.startsWith('deny React.FC')).length, 0, 'the inferred React.FC rule is gone');
  assert.equal(again.rules.filter((r) => r.origin !== 'inferred').length, 1);
  // A second one goes after the first, inside the section.
  const log = again.rules.find((r) => r.text.startsWith('deny console.log'))!;
  const ins2 = explicitRuleInsertion(after, log);
  assert.equal(after.split('\n')[ins2.line - 1].startsWith('- deny: /\\bReact'), true);
  assert.equal(ins2.text, `${explicitRuleLine(log)}\n`);
  // An empty guard section: right under its heading.
  const empty = '# X\n\n## Rules\n\n## Links\n';
  assert.deepEqual(explicitRuleInsertion(empty, fc), { line: 3, text: `\n${explicitRuleLine(fc)}\n` });
});

test('k0maru guard --explain-rules (built CLI): explicit and inferred rules with line, kind, severity, scope, sentence; ADR filter; unknown ADR is exit 2', () => {
  ensureBuilt();
  const r = makeRepo({
    '.k0maru/wiki/02_Architecture/adr-30.md': DECISION + '\n## Invariants\n\n- deny: `eval(` | in: nowhere/**\n',
    '.k0maru/wiki/02_Architecture/adr-31.md': '# ADR-31\n\n## Decision\n\nWe use Postgres.\n',
    'packages/web/a.ts': 'export {};\n',
  });
  try {
    r.commit('base');
    const run = (...args: string[]) => spawnSync(process.execPath, [DIST_CLI, ...args], { cwd: r.root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: r.root } });
    const json = run('guard', '--explain-rules', '--json');
    assert.equal(json.status, 0, json.stderr);
    const out = JSON.parse(json.stdout);
    assert.equal(out.inferredSetting, 'warn');
    const adr = out.adrs.find((a: { adrId: string }) => a.adrId === 'ADR-30');
    const explicit = adr.rules.find((x: { origin: string }) => x.origin === 'explicit');
    assert.deepEqual([explicit.kind, explicit.severity, explicit.include, explicit.line], ['deny', 'error', ['nowhere/**'], 19]);
    const lodash = adr.rules.find((x: { text: string }) => x.text.startsWith('deny import of lodash'));
    assert.deepEqual([lodash.origin, lodash.severity, lodash.include, lodash.line], ['inferred', 'warning', ['packages/web/**'], 9]);
    assert.match(lodash.explicit, /^- deny: \/.*\/ \| in: packages\/web\/\*\* \| no-strings \| because: Use the native array methods$/);
    assert.ok(out.scopeDiagnostics.some((d: { code: string; line: number }) => d.code === 'rule.scope-matches-nothing' && d.line === 19));
    r.write('.k0maru/config.json', '{"guard":{"inferred":"off"}}');
    const text = run('guard', '--explain-rules', 'adr-30');
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /inferred rules: off/);
    assert.match(text.stdout, /adr-30\.md:9 \[ADR-30#inferred-1\] inferred deny → off/);
    assert.match(text.stdout, /from: "Do not import `lodash` in `packages\/web`; use the native array methods\."/);
    assert.doesNotMatch(text.stdout, /ADR-31/);
    const missing = run('guard', '--explain-rules', 'ADR-99');
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /NOTE_NOT_FOUND/);
    const mixed = run('guard', '--explain-rules', '--staged');
    assert.equal(mixed.status, 2);
  } finally {
    r.dispose();
  }
});

test('a guard section with a shared scope is not where an unscoped inferred rule goes: a new section keeps its meaning', () => {
  const raw = `# X\n\n## Decision\n\nWe will avoid \`React.FC\`.\n\n## Rules\n\nApplies to: \`services/**\`\n\n- deny: \`eval(\`\n`;
  const fc = parseAdrRules(raw, 'x.md').rules.find((r) => r.origin === 'inferred')!;
  const ins = explicitRuleInsertion(raw, fc);
  assert.match(ins.text, /^\n## Invariants\n\n- deny: /);
  const lines = raw.split('\n');
  lines.splice(ins.line, 0, ...ins.text.split('\n').slice(0, -1));
  const after = parseAdrRules(lines.join('\n'), 'x.md');
  const written = after.rules.find((r) => r.pattern.source.includes('React'))!;
  assert.deepEqual([written.origin ?? 'explicit', written.include, written.within ?? null], ['explicit', [], null]);
});
