#!/usr/bin/env bash
# Captures the real logs in this folder (issue 15 analysis shapes beyond test/fixtures/logs) by running small
# failing programs with the toolchains of this machine. Re-run to regenerate: test/unit/offload/captured/capture.sh
# Needs node, python3 + pytest, javac/java, g++, make, cargo, valgrind.
set -u
OUT="$(cd "$(dirname "$0")" && pwd)"
SRC=/tmp/k0maru-h3-src
rm -rf "$SRC"; mkdir -p "$SRC"
run() { local name="$1" dir="$2"; shift 2; (cd "$dir" && "$@") >"$OUT/$name.log" 2>&1; echo "captured $name.log ($(wc -l <"$OUT/$name.log") lines)"; }

# node:test, nested describe, TypeError thrown in the code under test; spec and dot reporters
mkdir -p "$SRC/cart/src" "$SRC/cart/test"
echo '{"type":"module"}' >"$SRC/cart/package.json"
cat >"$SRC/cart/src/cart.js" <<'EOF'
export function total(items) {
  return items.reduce((s, i) => s + i.price.amount, 0);
}
export function parse(cfg) {
  try { return JSON.parse(cfg); }
  catch (e) { throw new Error('cart config unreadable', { cause: e }); }
}
EOF
cat >"$SRC/cart/test/cart.test.js" <<'EOF'
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { total } from '../src/cart.js';
describe('cart', () => {
  describe('total', () => {
    it('sums prices', () => { assert.equal(total([{ price: { amount: 2 } }]), 2); });
    it('handles a line without a price', () => { assert.equal(total([{}]), 0); });
  });
});
EOF
cat >"$SRC/cart/boot.js" <<'EOF'
import { parse } from './src/cart.js';
function boot() { return parse('{"currency": EUR}'); }
boot();
EOF
run node-test-spec-nested-typeerror "$SRC/cart" node --test --test-reporter=spec test/
run node-test-dot-nested-typeerror "$SRC/cart" node --test --test-reporter=dot test/
run node-esm-cause-chain "$SRC/cart" node boot.js

# Python: raise-from and "during handling", pytest --tb=native and a collection error
mkdir -p "$SRC/shop/shop" "$SRC/shop/tests" "$SRC/shop2/tests"
: >"$SRC/shop/shop/__init__.py"
cat >"$SRC/shop/shop/pricing.py" <<'EOF'
import json

RATES = {"EUR": 1.0}


class CheckoutError(Exception):
    pass


def rate(cur):
    return RATES[cur]


def total(amount, cur):
    try:
        return amount * rate(cur)
    except KeyError as e:
        raise CheckoutError(f"no rate for {cur}") from e


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return json.loads("{bad")
EOF
printf 'from shop.pricing import total\nprint(total(3, "USD"))\n' >"$SRC/shop/chain.py"
printf 'from shop.pricing import load\nload("/nonexistent.json")\n' >"$SRC/shop/during.py"
cat >"$SRC/shop/tests/test_pricing.py" <<'EOF'
import pytest
from shop.pricing import total, rate


@pytest.fixture
def db():
    import sqlite3
    return sqlite3.connect("/nonexistent/dir/x.db")


def test_rate_of_euro():
    assert rate("EUR") == 2.0


def test_with_db(db):
    assert db


def test_total():
    assert total(1, "EUR") == 1.0
EOF
echo "import nonexistent_mod" >"$SRC/shop2/tests/test_c.py"
echo "def test_a(): assert 1" >"$SRC/shop2/tests/test_a.py"
run python-raise-from-checkout "$SRC/shop" python3 chain.py
run python-during-handling-json "$SRC/shop" python3 during.py
run pytest-tb-native-failure-and-fixture-error "$SRC/shop" env PYTHONPATH=. python3 -m pytest -p no:cacheprovider --tb=native tests
run pytest-collection-error "$SRC/shop2" python3 -m pytest -p no:cacheprovider tests

# Java: a stream pipeline with a Caused by, javac errors
mkdir -p "$SRC/jv/com/acme"
cat >"$SRC/jv/com/acme/App.java" <<'EOF'
package com.acme;
import java.util.*;
public class App {
    static int parse(String s) { return Integer.parseInt(s.trim()); }
    static int load(String s) {
        try { return parse(s); }
        catch (NumberFormatException e) { throw new IllegalArgumentException("bad amount " + s, e); }
    }
    public static void main(String[] a) {
        List<String> xs = List.of("1", "x2");
        xs.stream().map(App::load).forEach(System.out::println);
    }
}
EOF
cat >"$SRC/jv/com/acme/Bad.java" <<'EOF'
package com.acme;
public class Bad {
    int f() { return undefinedVar + 1; }
    String g() { return 5; }
}
EOF
(cd "$SRC/jv" && javac -d out com/acme/App.java)
run java-stream-caused-by "$SRC/jv" java -cp out com.acme.App
run javac-two-errors "$SRC/jv" javac -d out com/acme/Bad.java

# C++: an uncaught exception (terminate), make's missing separator
mkdir -p "$SRC/cxx" "$SRC/mk"
cat >"$SRC/cxx/main.cpp" <<'EOF'
#include <stdexcept>
#include <vector>
int at(const std::vector<int>& v, int i) { if (i >= (int)v.size()) throw std::out_of_range("index past end"); return v[i]; }
int main() { std::vector<int> v{1}; return at(v, 3); }
EOF
(cd "$SRC/cxx" && g++ -g main.cpp -o thrower)
run cpp-uncaught-exception "$SRC/cxx" sh -c './thrower; echo "exit $?"'
printf 'all:\n    echo hi\n' >"$SRC/mk/Makefile"
run make-missing-separator "$SRC/mk" make

# Rust: a failing test with RUST_BACKTRACE=1
mkdir -p "$SRC/rs/src"
printf '[package]\nname = "fees"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n' >"$SRC/rs/Cargo.toml"
cat >"$SRC/rs/src/lib.rs" <<'EOF'
pub fn fee(cents: u64, rate_bp: u64) -> u64 {
    let parts: Vec<u64> = vec![cents * rate_bp / 10_000];
    parts[1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fee_of_a_small_amount() {
        assert_eq!(fee(100, 250), 2);
    }
}
EOF
run cargo-test-backtrace-index "$SRC/rs" env RUST_BACKTRACE=1 cargo test --offline -q

# Bare SyntaxError (no Traceback header), a bash "command not found", ld's missing library, Node's missing module
mkdir -p "$SRC/misc"
printf 'def total(xs:\n    return sum(xs)\n' >"$SRC/misc/app.py"
printf '#!/bin/bash\nset -e\necho start\nbuild_assets --minify\n' >"$SRC/misc/deploy.sh"
printf 'int main(){return 0;}\n' >"$SRC/misc/m.c"
printf "const helper = require('./missing-helper');\nhelper();\n" >"$SRC/misc/index.js"
run python-bare-syntaxerror "$SRC/misc" python3 app.py
run bash-command-not-found "$SRC/misc" bash ./deploy.sh
run ld-cannot-find-library "$SRC/misc" gcc m.c -lnotthere -o m
run node-cjs-module-not-found "$SRC/misc" node index.js

# pytest: a test method in a class (named `TestCart.test_total` in the entry, `TestCart::test_total` in the summary)
mkdir -p "$SRC/pycls/tests"
printf 'class TestCart:\n    def test_total(self):\n        items = [2, 3]\n        assert sum(items) == 6\n' >"$SRC/pycls/tests/test_cart.py"
run pytest-class-method "$SRC/pycls" python3 -m pytest -p no:cacheprovider tests

# valgrind memcheck: an off-by-one read past a heap block
mkdir -p "$SRC/vg"
cat >"$SRC/vg/buf.c" <<'EOF'
#include <stdlib.h>
#include <stdio.h>
int sum(const int *xs, int n) { int s = 0; for (int i = 0; i <= n; i++) s += xs[i]; return s; }
int main(void) { int *xs = malloc(4 * sizeof *xs); for (int i = 0; i < 4; i++) xs[i] = i; printf("%d\n", sum(xs, 4)); free(xs); return 0; }
EOF
(cd "$SRC/vg" && gcc -g -O0 buf.c -o buf)
run valgrind-invalid-read "$SRC/vg" valgrind --error-exitcode=1 ./buf

# Node AggregateError (Promise.any, members under [errors]) and an asyncio.gather failure
mkdir -p "$SRC/agg"
cat >"$SRC/agg/agg.js" <<'EOF'
async function fetchRate(src) { throw new Error(`rate source ${src} unreachable`); }
async function main() { return Promise.any([fetchRate('ecb'), fetchRate('fed')]); }
main();
EOF
cat >"$SRC/agg/aio.py" <<'EOF'
import asyncio
async def fetch(n):
    await asyncio.sleep(0)
    return {"a": 1}[n]
async def main():
    results = await asyncio.gather(fetch("a"), fetch("b"))
    print(results)
asyncio.run(main())
EOF
run node-aggregate-error "$SRC/agg" node agg.js
run python-asyncio-gather-keyerror "$SRC/agg" python3 aio.py

# jest, vitest and mocha (JS_BIN: a node_modules/.bin holding them; nothing is installed by this script).
# The vitest project is not in a folder named vitest: vitest drops stack frames whose path contains /vitest/.
JS_BIN="${JS_BIN:-/tmp/k0h4/npm/node_modules/.bin}"
if [ -x "$JS_BIN/jest" ] && [ -x "$JS_BIN/vitest" ] && [ -x "$JS_BIN/mocha" ]; then
  for d in jest vt; do
    mkdir -p "$SRC/$d/src" "$SRC/$d/test" "$SRC/$d/test2"
    printf '{"name":"inv","version":"1.0.0"%s}\n' "$([ $d = vt ] && echo ',"type":"module"')" >"$SRC/$d/package.json"
  done
  echo 'module.exports = {};' >"$SRC/jest/jest.config.js"
  cat >"$SRC/jest/src/invoice.js" <<'EOF'
function lineTotal(line) {
  return line.qty * line.product.price;
}
function invoiceTotal(lines) {
  return lines.map(lineTotal).reduce((a, b) => a + b, 0);
}
function loadConfig(text) {
  try { return JSON.parse(text); }
  catch (e) { throw new Error('invoice config unreadable', { cause: e }); }
}
module.exports = { invoiceTotal, loadConfig };
EOF
  sed -e 's/^function /export function /' -e '/^module.exports/d' "$SRC/jest/src/invoice.js" >"$SRC/vt/src/invoice.js"
  cat >"$SRC/jest/test/invoice.test.js" <<'EOF'
const { invoiceTotal, loadConfig } = require('../src/invoice');
describe('invoice', () => {
  describe('totals', () => {
    test('sums the lines', () => {
      expect(invoiceTotal([{ qty: 2, product: { price: 5 } }])).toBe(10);
    });
    test('skips lines without a product', () => {
      expect(invoiceTotal([{ qty: 1 }])).toBe(0);
    });
  });
  test('reads the config', () => {
    expect(loadConfig('{"vat": }').vat).toBe(20);
  });
});
EOF
  sed -e "1s/.*/import { describe, test, expect } from 'vitest';\nimport { invoiceTotal, loadConfig } from '..\/src\/invoice.js';/" "$SRC/jest/test/invoice.test.js" >"$SRC/vt/test/invoice.test.js"
  printf "const { nothing } = require('../src/does-not-exist');\ntest('never runs', () => { expect(nothing).toBe(1); });\n" >"$SRC/jest/test2/broken.test.js"
  mkdir -p "$SRC/mocha/test"
  cat >"$SRC/mocha/test/db.spec.js" <<'EOF'
const assert = require('assert');
function connect(url) { if (!url.startsWith('pg://')) throw new TypeError(`unsupported url ${url}`); return {}; }
describe('repository', function () {
  let db;
  beforeEach(function () { db = connect('mysql://localhost/test'); });
  it('finds orders', function () { assert.ok(db); });
});
EOF
  run jest-nested-typeerror-and-cause "$SRC/jest" "$JS_BIN/jest" test/
  run jest-suite-failed-to-run "$SRC/jest" "$JS_BIN/jest" test2/
  run vitest-nested-typeerror-and-cause "$SRC/vt" "$JS_BIN/vitest" run --root .
  run mocha-before-each-hook "$SRC/mocha" "$JS_BIN/mocha" test/
else
  echo "skipped jest/vitest/mocha: set JS_BIN to a node_modules/.bin with them"
fi
