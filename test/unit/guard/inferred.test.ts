import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inferSentence, type InferredRuleDraft } from '../../../src/core/guard/inferred';
import { compilePattern } from '../../../src/core/guard/pattern';
import { parseAdrRules } from '../../../src/core/guard/ruleParser';
import { applyInferredPolicy } from '../../../src/core/guard/inferredPolicy';

const rulesOf = (s: string): InferredRuleDraft[] => {
  const r = inferSentence(s);
  return r && 'rules' in r ? r.rules : [];
};
const matches = (d: InferredRuleDraft, line: string) => compilePattern(d.pattern).matchLine(line).length > 0;

test('the issue\'s examples: import denial with folder scope and remediation, avoid, instead of, allowed only in', () => {
  const [lodash] = rulesOf('Do not import `lodash` in `packages/web`; use the native array methods.');
  assert.deepEqual(lodash.include, ['packages/web/**']);
  assert.equal(lodash.remediation, 'Use the native array methods');
  for (const line of ["import _ from 'lodash';", 'import { map } from "lodash/fp";', "const _ = require('lodash');", "import('lodash')", 'from lodash import chain', 'import lodash', "export { map } from 'lodash';", "} from 'lodash';"]) {
    assert.ok(matches(lodash, line), `should match: ${line}`);
  }
  for (const line of ["import x from 'lodash-es';", 'const lodashy = 1;', "url = 'https://lodash.com'", 'see lodash docs']) {
    assert.ok(!matches(lodash, line), `should not match: ${line}`);
  }
  const [fc] = rulesOf('We will avoid `React.FC`.');
  assert.ok(matches(fc, 'const A: React.FC<P> = () => null;'));
  assert.ok(!matches(fc, 'const A: React.FCX = 1;'));
  const [moment] = rulesOf('Use Luxon instead of `moment`.');
  assert.ok(matches(moment, "import moment from 'moment';"));
  assert.ok(matches(moment, 'const d = moment(x).fromNow();'), 'a package named like an identifier: its uses count');
  assert.ok(!matches(moment, 'this.moment(x)'));
  assert.ok(!matches(moment, "import { DateTime } from 'luxon';"));
  const [log] = rulesOf('`console.log` is allowed only in `scripts/`.');
  assert.deepEqual([log.include, log.exclude], [[], ['scripts/**']]);
  assert.equal(log.context, 'code-strict', 'identifiers count in code, not in strings');
});

test('two spans in one list, passive voice, such-as, bullets that start with No, calls and literals', () => {
  assert.deepEqual(rulesOf('we have decided that `React.FC` and `React.SFC` should be avoided in our codebase when adding new code.').map((r) => r.describe), ['deny React.FC', 'deny React.SFC']);
  assert.deepEqual(rulesOf('The `eval()` function is forbidden.').map((r) => r.describe), ['deny eval(']);
  assert.deepEqual(rulesOf('Calls to `os.system` are prohibited; use `subprocess.run`.').map((r) => [r.describe, r.remediation]), [['deny os.system', 'Use `subprocess.run`']]);
  assert.deepEqual(rulesOf('Avoid blocking constructs such as `Wait()` and `.Result`.').map((r) => r.describe), ['deny Wait(', 'deny: .Result']);
  assert.deepEqual(rulesOf('No `console.log` calls.').map((r) => r.describe), ['deny console.log']);
  assert.deepEqual(rulesOf('Never use `SELECT *`.').map((r) => [r.describe, r.context]), [['deny: SELECT *', 'code']]);
  assert.deepEqual(rulesOf('Do not add `// eslint-disable` comments.').map((r) => r.context), ['anywhere']);
  assert.deepEqual(rulesOf('Prefer `date-fns` over `moment`.').map((r) => r.describe), ["deny import of moment"]);
  assert.deepEqual(rulesOf('Replace `request` with `got`.').map((r) => r.describe), ["deny import of request"]);
  assert.deepEqual(rulesOf('`fmt.Println` is not allowed in `internal/`.').map((r) => [r.describe, r.include]), [['deny fmt.Println', ['internal/**']]]);
  for (const [s, d] of [
    ['`moment` must never be used.', 'deny import of moment'],
    ["We're not going to use `axios`.", 'deny import of axios'],
    ['There should be no `console.log` calls.', 'deny console.log'],
    ['Use of `pickle` is prohibited.', 'deny pickle'],
    ['Avoid using `var`.', 'deny var'],
  ]) assert.deepEqual(rulesOf(s).map((r) => r.describe), [d], s);
  assert.deepEqual(rulesOf('Do not import from `@acme/secret` outside `packages/core`.').map((r) => [r.describe, r.exclude]), [["deny import of @acme/secret", ['packages/core/**']]]);
});

test('past, alternatives, consequences, hypotheticals, questions and descriptions never become rules', () => {
  for (const s of [
    'We considered `moment`.',
    'Previously we used `lodash`.',
    'This means `moment` will be removed.',
    'Should we stop using `moment`?',
    'Option 2: use `luxon` instead of `moment`.',
    'We could avoid `React.FC`.',
    '`moment` was deprecated in 2020.',
    'This new setup uses the standard library instead of using `import gevent`.',
    'The client retries using `MidPointHeight` instead of `LatestHeight`.',
    'Backend packages should use the `node-fetch` package.',
    'Do not use `moment` unless a library requires it.',
    'Never commit `.env` files.',
    'We pin images to avoid `latest` tags.',
    'This will make `moment` obsolete.',
    'Do not edit `dist/`.',
  ]) assert.deepEqual(inferSentence(s), undefined, s);
});

test('scopes in words and requirements without a trigger are ambiguous (a diagnostic), never a rule that fires everywhere', () => {
  for (const s of ['Frontend plugins should not use `axios`.', 'Never call `eval(` in production code.', 'Do not use `lodash` in the `web` package.', 'In Reactor code paths we should avoid blocking constructs such as `Wait()`.']) {
    const r = inferSentence(s);
    assert.ok(r && 'ambiguous' in r, s);
  }
  const req = inferSentence('Every route handler must call `requireAuth(`.');
  assert.ok(req && 'ambiguous' in req && /require/.test(req.ambiguous));
  assert.equal(inferSentence('Each node must have one `CleanStart` execution.'), undefined, 'not a code rule: no diagnostic either');
  assert.equal(rulesOf('For example, do not use `eval(`.').length, 1, '"For example" is not a place');
});

test('a requirement with a trigger span becomes an inferred require rule with the window its words say', () => {
  const [r] = rulesOf('Every `router.get(` handler must call `requireAuth(`.');
  assert.equal(r.kind, 'require');
  assert.equal(r.window?.kind, 'statement');
  assert.ok(compilePattern(r.when!).matchLine("router.get('/x', h)").length);
  const [above] = rulesOf('Every `innerHTML =` must have a `/* trusted */` comment on the line directly above.');
  assert.deepEqual(above.window, { kind: 'above', lines: 1 });
});

const ADR = (decision: string, extra = '', fm = '') => `---
id: ADR-7
status: accepted
${fm}---
# ADR-7: Dates

## Context

We considered \`moment\` and \`dayjs\`. Do not use \`Context\` here.

## Decision

${decision}

## Consequences

Do not use \`Consequence\` after this.
${extra}`;

test('only decision sections yield inferred rules; they carry the sentence, its line, origin and an id of their own', () => {
  const adr = parseAdrRules(ADR('Use Luxon instead of `moment`.\nDo not use `dayjs`;\nuse Luxon.'), 'adr-7.md');
  const inferred = adr.rules.filter((r) => r.origin === 'inferred');
  assert.deepEqual(inferred.map((r) => [r.id, r.text, r.line]), [
    ['ADR-7#inferred-1', "deny import of moment (inferred)", 13],
    ['ADR-7#inferred-2', "deny import of dayjs (inferred)", 14],
  ]);
  assert.equal(inferred[1].sentence, 'Do not use `dayjs`; use Luxon.');
  assert.equal(inferred[1].remediation, 'Use Luxon');
  assert.equal(adr.diagnostics.length, 0);
});

test('sentence ends: "I/O." ends a sentence (single letters are initials only after a space); sub-sections about consequences or rejection are not decision text', () => {
  const raw = '# X\n\n## Decision\n\nThe SDK does blocking I/O. We will avoid `Thread.Sleep`.\n\n### General consequences\n\nWe will avoid `Other.Thing`.\n\n### Reason for rejection\n\nDo not use `Nope.Never`.\n';
  assert.deepEqual(parseAdrRules(raw, 'x.md').rules.map((r) => r.text), ['deny Thread.Sleep (inferred)']);
});

test('MADR: Decision Outcome counts, its Consequences sub-section does not; Decision Drivers and Considered Options never', () => {
  const raw = `# Use Luxon

## Decision Drivers

* Do not use \`driverpkg\`.

## Considered Options

* Use \`luxon\` instead of \`optionpkg\`.

## Decision Outcome

Chosen option: "Luxon", because it is immutable. Use \`luxon\` instead of \`moment\`.

### Positive Consequences

* Do not use \`positivepkg\` anymore.
`;
  const adr = parseAdrRules(raw, 'x.md');
  assert.deepEqual(adr.rules.map((r) => r.text), ["deny import of moment (inferred)"]);
});

test('explicit rules win: an explicit rule naming the same code drops the inferred one; proposed ADRs and guard-inferred: off yield none', () => {
  const withExplicit = parseAdrRules(ADR('We will avoid `React.FC`.', '\n## Invariants\n\n- deny: `React.FC`\n'), 'a.md');
  assert.deepEqual(withExplicit.rules.map((r) => r.origin ?? 'explicit'), ['explicit']);
  const proposed = parseAdrRules(ADR('We will avoid `React.FC`.').replace('status: accepted', 'status: proposed'), 'b.md');
  assert.equal(proposed.rules.length, 0);
  const off = parseAdrRules(ADR('We will avoid `React.FC`.', '', 'guard-inferred: off\n'), 'c.md');
  assert.equal(off.rules.length, 0);
  const block = parseAdrRules(ADR('We will avoid `React.FC`.', '', 'guard-inferred: block\n'), 'd.md');
  assert.equal(block.rules[0].adrSetting, 'block');
  const bad = parseAdrRules(ADR('We will avoid `React.FC`.', '', 'guard-inferred: sometimes\n'), 'e.md');
  assert.deepEqual(bad.diagnostics.map((d) => d.code), ['rule.bad-setting']);
});

test('check-time policy: warn by default, block / off from the vault, the ADR setting wins, explicit duplicates dropped', () => {
  const adr = parseAdrRules(ADR('We will avoid `React.FC`.'), 'a.md');
  assert.deepEqual(applyInferredPolicy(adr.rules, 'warn').map((r) => r.severity), ['warning']);
  assert.deepEqual(applyInferredPolicy(adr.rules, 'block').map((r) => r.severity), ['error']);
  assert.deepEqual(applyInferredPolicy(adr.rules, 'off'), []);
  const own = parseAdrRules(ADR('We will avoid `React.FC`.', '', 'guard-inferred: warn\n'), 'b.md');
  assert.deepEqual(applyInferredPolicy(own.rules, 'block').map((r) => r.severity), ['warning']);
  const explicit = { ...adr.rules[0], origin: undefined, id: 'X#1' };
  assert.deepEqual(applyInferredPolicy([adr.rules[0], explicit], 'warn').map((r) => r.id), ['X#1']);
  assert.equal(adr.rules[0].severity, undefined, 'the cached rule is never changed');
});

test('bad input: a 10,000-line decision section is read within bounds (capped, with a diagnostic at the line), a one-sentence page is skipped', () => {
  const body = Array.from({ length: 10000 }, (_, i) => (i % 2 ? `We will avoid \`Thing${i}\`.` : `Do not use \`other${i}\`;`)).join('\n');
  const t0 = performance.now();
  const adr = parseAdrRules(`# Big\n\n## Decision\n\n${body}\n`, 'big.md');
  const ms = performance.now() - t0;
  assert.equal(adr.rules.length, 100);
  const cap = adr.diagnostics.filter((d) => d.code === 'rule.ambiguous');
  assert.equal(cap.length, 1);
  assert.ok(cap[0].line > 5 && /inference stopped/.test(cap[0].message));
  assert.ok(ms < 3000, `${ms} ms`);
  const glued = parseAdrRules(`# Big\n\n## Decision\n\n${Array.from({ length: 10000 }, (_, i) => `avoid \`a${i}\` and`).join(' ')}\n`, 'glued.md');
  assert.deepEqual([glued.rules.length, glued.diagnostics.length], [0, 0]);
  const fenced = parseAdrRules('# X\n\n## Decision\n\n```md\nDo not use `lodash`.\n```\n', 'f.md');
  assert.equal(fenced.rules.length, 0, 'a fenced example is never a decision');
});

test('the ADR\'s own scope (frontmatter, an "Applies to" line in the decision) holds for its inferred rules; the sentence\'s scope narrows it', () => {
  const fm = parseAdrRules('---\nscope: services/**\n---\n# X\n\n## Decision\n\nWe will avoid `React.FC`.\nDo not import `lodash` in `services/web`.\n', 'x.md');
  assert.deepEqual(fm.rules.map((r) => [r.include, r.within ?? null]), [[['services/**'], null], [['services/web/**'], [['services/**']]]]);
  const line = parseAdrRules('# X\n\n## Decision\n\nApplies to `pkg/**/*.go`.\n\nNever call `panic(`.\n', 'y.md');
  assert.deepEqual(line.rules.map((r) => [r.text, r.include]), [['deny panic( (inferred)', ['pkg/**/*.go']]]);
  const unclear = parseAdrRules('# X\n\n## Decision\n\nApplies to: the payment services.\n\nNever call `panic(`.\n', 'z.md');
  assert.equal(unclear.rules.length, 0, 'a declared scope that cannot be read: no rule that could fire outside it');
  assert.ok(unclear.diagnostics.some((d) => d.code === 'rule.ambiguous' && d.line === 5));
});
