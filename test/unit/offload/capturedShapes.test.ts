import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText, formatLocation } from '../../../src/core/offload';

/**
 * More real shapes, captured on this machine by test/unit/offload/captured/capture.sh (nested node:test suites,
 * ESM cause chains, pytest --tb=native and collection errors, Java stream + Caused by, javac, C++ terminate,
 * make, cargo test with RUST_BACKTRACE=1). Each: primary code, root (path suffix + line), failing test, chain.
 */
const DIR = join(__dirname, 'captured');
/** chainHasOwnStack false: the first link (an aggregate) is printed without a stack of its own. */
const CASES: { file: string; code: string; message: string; root?: string; test?: string; chain?: string[]; chainHasOwnStack?: boolean }[] = [
  { file: 'node-test-spec-nested-typeerror.log', code: 'TypeError', message: "reading 'amount'", root: 'cart/src/cart.js:2', test: 'handles a line without a price' },
  { file: 'node-test-dot-nested-typeerror.log', code: 'TypeError', message: "reading 'amount'", root: 'cart/src/cart.js:2', test: 'handles a line without a price' },
  { file: 'node-esm-cause-chain.log', code: 'Error', message: 'cart config unreadable', root: 'cart/src/cart.js:6', chain: ['Error', 'SyntaxError'] },
  { file: 'python-raise-from-checkout.log', code: 'CheckoutError', message: 'no rate for USD', root: 'shop/shop/pricing.py:18', chain: ['CheckoutError', 'KeyError'] },
  { file: 'python-during-handling-json.log', code: 'JSONDecodeError', message: 'Expecting property name', root: 'shop/shop/pricing.py:26', chain: ['JSONDecodeError', 'FileNotFoundError'] },
  { file: 'pytest-tb-native-failure-and-fixture-error.log', code: 'AssertionError', message: 'assert 1.0 == 2.0', root: 'tests/test_pricing.py:12', test: 'test_rate_of_euro' },
  { file: 'pytest-collection-error.log', code: 'ModuleNotFoundError', message: "No module named 'nonexistent_mod'", root: 'tests/test_c.py:1' },
  { file: 'java-stream-caused-by.log', code: 'IllegalArgumentException', message: 'bad amount x2', root: 'com/acme/App.java:7', chain: ['IllegalArgumentException', 'NumberFormatException'] },
  { file: 'javac-two-errors.log', code: 'cannot-find-symbol', message: 'cannot find symbol', root: 'com/acme/Bad.java:3' },
  { file: 'cpp-uncaught-exception.log', code: 'std::out_of_range', message: 'index past end' },
  { file: 'make-missing-separator.log', code: 'make-error', message: 'missing separator', root: 'Makefile:2' },
  { file: 'python-bare-syntaxerror.log', code: 'SyntaxError', message: "'(' was never closed", root: 'misc/app.py:1' },
  { file: 'bash-command-not-found.log', code: 'command-not-found', message: 'build_assets: command not found', root: 'deploy.sh:4' },
  { file: 'ld-cannot-find-library.log', code: 'link-error', message: 'cannot find -lnotthere' },
  { file: 'node-cjs-module-not-found.log', code: 'MODULE_NOT_FOUND', message: "Cannot find module './missing-helper'", root: 'misc/index.js:1' },
  { file: 'jest-nested-typeerror-and-cause.log', code: 'TypeError', message: "reading 'price'", root: 'src/invoice.js:2', test: 'invoice › totals › skips lines without a product' },
  { file: 'jest-suite-failed-to-run.log', code: 'Error', message: "Cannot find module '../src/does-not-exist'", root: 'test2/broken.test.js:1' },
  { file: 'vitest-nested-typeerror-and-cause.log', code: 'TypeError', message: "reading 'price'", root: 'src/invoice.js:2', test: 'invoice > totals > skips lines without a product' },
  { file: 'mocha-before-each-hook.log', code: 'TypeError', message: 'unsupported url mysql://localhost/test', root: 'test/db.spec.js:2', test: '"before each" hook for "finds orders"' },
  { file: 'pytest-class-method.log', code: 'AssertionError', message: 'assert 5 == 6', root: 'tests/test_cart.py:4', test: 'tests/test_cart.py::TestCart::test_total' },
  { file: 'valgrind-invalid-read.log', code: 'invalid-read', message: 'Invalid read of size 4', root: 'buf.c:3' },
  { file: 'node-aggregate-error.log', code: 'AggregateError', message: 'All promises were rejected', root: 'agg/agg.js:1', chain: ['AggregateError', 'Error', 'Error'], chainHasOwnStack: false },
  { file: 'python-asyncio-gather-keyerror.log', code: 'KeyError', message: "KeyError: 'b'", root: 'agg/aio.py:4' },
  { file: 'cargo-test-backtrace-index.log', code: 'panic', message: 'index out of bounds', root: 'src/lib.rs:3', test: 'tests::fee_of_a_small_amount' },
];

for (const c of CASES) {
  test(`captured ${c.file}: [${c.code}] ${c.message} @ ${c.root ?? '-'}${c.test ? ` in ${c.test}` : ''}`, () => {
    const p = analyzeText(readFileSync(join(DIR, c.file), 'utf8')).primary;
    assert.ok(p, 'a primary error');
    assert.equal(p.code, c.code);
    assert.ok(p.message.includes(c.message), p.message);
    const where = p.location ? `${p.location.file}:${p.location.line}` : undefined;
    if (c.root) assert.ok(where?.endsWith(c.root), `root ${formatLocation(p.location)}`);
    else assert.equal(where, undefined);
    if (c.test) assert.ok(p.test?.includes(c.test), `test ${p.test}`);
    else assert.equal(p.test, undefined);
    assert.deepEqual(p.chain?.map((l) => l.code), c.chain);
    // Every link of a chain says where it surfaced, in user code.
    for (const l of (p.chain ?? []).slice(c.chainHasOwnStack === false ? 1 : 0)) assert.ok(l.location && !/node:|lib\/python|java\.base/.test(l.location.file), `${l.code} @ ${formatLocation(l.location)}`);
  });
}

test('the same logs with every line prefixed by a CI timestamp, a Turborepo task or a docker compose service analyse the same', () => {
  const prefixes: [string, (i: number) => string][] = [
    ['GitHub Actions', (i) => `2026-12-02T01:${String(i % 60).padStart(2, '0')}:07.1234567Z `],
    ['Turborepo', () => '@acme/web:test: '],
    ['docker compose', () => 'api-1  | '],
  ];
  for (const [what, prefix] of prefixes) {
    for (const c of CASES) {
      const raw = readFileSync(join(DIR, c.file), 'utf8');
      const stamped = raw.split('\n').map((l, i) => prefix(i) + l).join('\n');
      const a = analyzeText(raw).primary;
      const b = analyzeText(stamped).primary;
      assert.equal(b?.code, a?.code, `${what}: ${c.file}`);
      assert.equal(formatLocation(b?.location), formatLocation(a?.location), `${what}: ${c.file}`);
      assert.equal(b?.test, a?.test, `${what}: ${c.file}`);
    }
  }
});

test('a pytest failure is one error even when the summary names it differently from its entry', () => {
  assert.equal(analyzeText(readFileSync(join(DIR, 'pytest-class-method.log'), 'utf8')).errorCount, 1);
});

test('jest and vitest: the second failing test keeps its Error with its cause, each link where it surfaced', () => {
  for (const [file, test] of [['jest-nested-typeerror-and-cause.log', 'invoice › reads the config'], ['vitest-nested-typeerror-and-cause.log', 'invoice > reads the config']]) {
    const e = analyzeText(readFileSync(join(DIR, file), 'utf8')).errors.find((x) => x.test === test);
    assert.ok(e, file);
    assert.equal(e.message, 'Error: invoice config unreadable');
    assert.deepEqual(e.chain?.map((l) => `${l.code}@${l.location?.file}:${l.location?.line}`), ['Error@src/invoice.js:9', 'SyntaxError@src/invoice.js:8'], file);
  }
});
