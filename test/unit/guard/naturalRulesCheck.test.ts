import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardCheck } from '../../../src/core/guard/check';
import { makeRepo } from './helpers';

/**
 * The natural styles end to end: a real git repository, staged changes, the real guard check. Every finding
 * outside a declared scope would show up here as an extra line.
 */
const ADR = `---
id: ADR-050
status: accepted
---
# ADR-050: Service hygiene

## Rules

Applies to: \`services/**/*.ts\`, \`lib/**/*.js\`

- deny: \`console.log(\` (warning)
- deny: \`debugger\` (comments too, case-insensitive)
- deny: \`fetch(\` in \`services/web\` because use the http client
- require: every \`axios.get(\`, \`axios.post(\` call passes \`timeout:\`
- require: a \`// reason:\` on the same line as every \`eslint-disable\`
- exclude: **/fixtures/**

## Guard

Only in \`*_spec.rb\` files.

- deny: \`focus: true\`
`;

test('scopes, word modifiers and sentence requires through the real check: findings exactly where the ADR says', async () => {
  const r = makeRepo({ '.k0maru/wiki/02_Architecture/adr-050.md': ADR, 'services/a.ts': 'export {};\n', '.gitignore': '.k0maru/index.db*\n' });
  try {
    r.commit('init');
    const body = [
      'console.log("x");', // 1: warning
      '// DEBUGGER left here', // 2: comments too, ignore case
      'fetch("/api");', // 3: fetch only under services/web
      'axios.get(url, { timeout: 5 });', // 4: ok
      'axios.post(url, body);', // 5: require violated
      '// eslint-disable-next-line no-console', // 6: require violated (trigger in a comment)
      '// eslint-disable-line // reason: vendored', // 7: ok
    ].join('\n');
    r.write('services/a.ts', body + '\n');
    r.write('services/web/b.ts', body + '\n');
    r.write('services/fixtures/c.ts', body + '\n'); // excluded by the list item
    r.write('tools/d.ts', body + '\n'); // outside the section scope
    r.write('lib/e.ts', body + '\n'); // lib/ covers only .js
    r.write('spec/user_spec.rb', 'it "x", focus: true do\nend\n');
    r.write('app/user.rb', 'x = { focus: true }\n'); // outside "Only in *_spec.rb"
    r.git('add', '-A');
    const res = await guardCheck({ cwd: r.root, staged: true, cache: null });
    const got = res.violations.map((v) => `${v.path}:${v.line} ${v.kind}/${v.severity} ${v.ruleId}`).sort();
    const per = (p: string, withFetch: boolean) => [
      `${p}:1 warn/warning ADR-050#1`,
      `${p}:2 deny/error ADR-050#2`,
      ...(withFetch ? [`${p}:3 deny/error ADR-050#3`] : []),
      `${p}:5 require/error ADR-050#4.2`,
      `${p}:6 require/error ADR-050#5`,
    ];
    assert.deepEqual(got, [...per('services/a.ts', false), ...per('services/web/b.ts', true), 'spec/user_spec.rb:1 deny/error ADR-050#6'].sort());
    // No tracked file is under lib/ with a .js name: the check itself says so (a diagnostic, never a violation).
    assert.deepEqual(res.diagnostics.filter((d) => !d.inferred).map((d) => `${d.code}@${d.line}`), ['rule.scope-matches-nothing@9']);
    assert.equal(res.violations.find((v) => v.ruleId === 'ADR-050#3')?.remediation, 'use the http client');
  } finally {
    r.dispose();
  }
});
