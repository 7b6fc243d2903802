import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText, countTokensSafe, MAX_DIAGRAM_LINES, offloadLog, renderMermaid } from '../../../src/core/offload';
import { tempRefsProject } from '../../helpers/files';
import { LOG_DIR } from './fixtures';
import { correct, judge, readLabels, type Verdict } from './labels';

/**
 * Every real runner log that a human labelled in test/fixtures/logs/expected.json (issue 15): the analysis
 * must name the primary error (code or type + message), the root at the deepest user frame, the failing test
 * and, for chains, every link in order (final exception first). Tune and held-out logs are both checked; the
 * held-out ones were never looked at while the analyzer was written.
 */
const labels = readLabels().filter((l) => existsSync(join(LOG_DIR, l.file)));
const verdicts: Verdict[] = [];

for (const label of labels) {
  test(`real ${label.runner} log ${label.file} (${label.split}): primary, root, test, chain`, () => {
    const v = judge(label);
    verdicts.push(v);
    const why = `${label.file}: got ${v.got}`;
    assert.ok(v.primary, `primary should be [${label.primary.type}] …${label.primary.message}… — ${why}`);
    assert.ok(v.root, `root should be ${label.root ?? 'none'} — ${why}`);
    assert.ok(v.test, `test should be ${label.test ?? 'none'} — ${why}`);
    assert.ok(v.chain, `chain should be ${label.chain?.join(' ← ') ?? 'none'} — ${why}`);
  });
}

test('at least 40 labelled real logs; right primary error AND root file:line on ≥ 95 % of them', () => {
  assert.ok(labels.length >= 40, `${labels.length} labelled logs`);
  const all = labels.map((l) => judge(l));
  const ok = all.filter(correct).length;
  assert.ok(ok / all.length >= 0.95, `${ok}/${all.length}: ${all.filter((v) => !correct(v)).map((v) => v.file).join(', ')}`);
});

for (const label of labels) {
  const raw = readFileSync(join(LOG_DIR, label.file), 'utf8');
  const lines = raw.split('\n').length;
  if (lines < 1000) continue;
  test(`offload of ${label.file} (${lines} lines): ≥ 97 % token cut, Mermaid ≤ ${MAX_DIAGRAM_LINES} lines, primary and root in the summary`, async () => {
    const r = await offloadLog(tempRefsProject('k0-reallog-'), { text: raw, threshold: 30 });
    assert.ok(r.reduction >= 0.97, `reduction ${r.reduction}`);
    assert.equal(r.tokensBefore, countTokensSafe(raw));
    assert.ok(r.mermaid!.split('\n').length <= MAX_DIAGRAM_LINES);
    if (label.root) assert.ok(r.text.includes(label.root), r.text);
  });
}

test('every labelled log renders a valid Mermaid diagram of at most 15 lines that names the primary error', async () => {
  const mermaid = (await import('mermaid')).default;
  for (const label of labels) {
    const a = analyzeText(readFileSync(join(LOG_DIR, label.file), 'utf8'));
    const diagram = renderMermaid(a, 'node_0123abcd');
    assert.ok(diagram.split('\n').length <= MAX_DIAGRAM_LINES, label.file);
    if (a.primary) assert.ok(diagram.includes('ErrorDetected'), label.file);
    // In Node mermaid parses, then fails in its DOMPurify step (no DOM); a syntax error is thrown before that.
    await mermaid.parse(diagram).catch((err: Error) => assert.match(err.message, /DOMPurify/, `${label.file}: ${err.message}\n${diagram}`));
  }
});

// The four misses issue 15 reported, named (each failed before the per-language trackers).
const primaryOf = (file: string) => analyzeText(readFileSync(join(LOG_DIR, file), 'utf8')).primary;

test('issue15 miss 1: the node --test spec reporter reports the failing assertion, not "no error found"', () => {
  const p = primaryOf('node-test-spec-reporter.log');
  assert.equal(p?.kind, 'test-failure');
  assert.match(p?.code ?? '', /AssertionError|ERR_ASSERTION/);
  assert.ok(p?.location && !/node:/.test(p.location.file));
  assert.ok(p?.test);
});

test('issue15 miss 2: vitest roots at the user test frame printed after ❯', () => {
  const p = primaryOf('vitest-assertion.log');
  assert.match(`${p?.location?.file}:${p?.location?.line}`, /test\/cart\.test\.js:11$/);
});

test('issue15 miss 3: pytest with one assertion failure and one fixture error reports the assertion, rooted in the test, not in the stdlib', () => {
  const p = primaryOf('pytest-v-failure-error-xfail.log');
  assert.equal(p?.code, 'AssertionError');
  assert.equal(p?.kind, 'test-failure');
  assert.match(`${p?.location?.file}:${p?.location?.line}`, /tests\/test_tax\.py:14$/);
  assert.doesNotMatch(p?.location?.file ?? '', /lib\/python/);
});

test('issue15 miss 4: a Python chain reports the final exception and where every link surfaced', () => {
  const p = primaryOf('python-chained-exception.log');
  assert.equal(p?.code, 'FileNotFoundError');
  assert.deepEqual(p?.chain?.map((l) => l.code), ['FileNotFoundError', 'CheckoutError', 'KeyError']);
  assert.deepEqual(p?.chain?.map((l) => `${l.location?.file.replace(/^.*pyshop\//, '')}:${l.location?.line}`), ['chained_main.py:14', 'shop/checkout.py:19', 'shop/pricing.py:13']);
});
