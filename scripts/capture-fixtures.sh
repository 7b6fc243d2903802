#!/usr/bin/env bash
# Captures real failure logs for the offload / gc / distill tests by running small failing programs on this
# machine. Nothing in test/fixtures/logs is hand-written: re-run this script to regenerate them.
#   scripts/capture-fixtures.sh            # all
#   scripts/capture-fixtures.sh 'REGEX'    # only logs whose name matches (sources are still all written)
#   K0_FIXTURE_OUT=/tmp/recap scripts/capture-fixtures.sh   # write the logs elsewhere (to compare shapes)
# Needs: cargo/rustc/clippy, python3 (+ pytest if present), node, the project's tsc, g++ (ASan), make, cmake, ninja,
# javac/java/mvn (offline, local Maven repository); apt-get install golang-go clang shellcheck gradle; vitest, jest,
# mocha, eslint from $K0_NPM_TOOLS. A family whose toolchain is missing is skipped. See test/fixtures/logs/README.md.
# Sources are written to a fixed scratch folder so the paths inside the logs stay stable between captures.
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${K0_FIXTURE_OUT:-$ROOT/test/fixtures/logs}"
SRC="${K0_FIXTURE_SRC:-/tmp/k0maru-fixture-src}"
ONLY="${1:-}"
# vitest / jest / mocha / eslint come from a scratch npm folder outside the repo (never the project's package.json):
#   mkdir -p /tmp/k0h4/npm && cd /tmp/k0h4/npm && npm init -y && npm install vitest jest mocha eslint @eslint/js
# shellcheck disable=SC2034 # read by the parts in capture-fixtures.d/
NPM_TOOLS="${K0_NPM_TOOLS:-/tmp/k0h4/npm/node_modules}"
rm -rf "$SRC"
mkdir -p "$OUT" "$SRC"

# run NAME DIR CMD... : runs CMD in DIR, stdout+stderr interleaved into $OUT/NAME.log; failure is expected.
run() {
  local name="$1" dir="$2"; shift 2
  if [ -n "$ONLY" ] && ! [[ "$name" =~ $ONLY ]]; then return 0; fi
  (cd "$dir" && "$@") >"$OUT/$name.log" 2>&1
  echo "captured $name.log (exit $?, $(wc -l <"$OUT/$name.log") lines)"
}

# ---------------------------------------------------------------- Rust
cargo_new() { mkdir -p "$SRC/$1/src"; printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n' "$1" >"$SRC/$1/Cargo.toml"; }

cargo_new ledger
cat >"$SRC/ledger/src/main.rs" <<'EOF'
mod worker;

fn main() {
    let jobs = vec![String::from("settle"), String::from("refund")];
    let n = worker::run_all(jobs);
    println!("ran {n} jobs");
}
EOF
cat >"$SRC/ledger/src/worker.rs" <<'EOF'
pub struct Batch {
    pub jobs: Vec<String>,
}

fn consume(batch: Batch) -> usize {
    batch.jobs.len()
}

pub fn run_all(jobs: Vec<String>) -> usize {
    let batch = Batch { jobs };
    let count = consume(batch);
    // the batch was moved into consume() above
    let again = batch.jobs.len();
    count + again
}
EOF
# --color always keeps real ANSI escapes in this one fixture (the engine must strip them for analysis).
run rust-e0382-use-after-move "$SRC/ledger" cargo build --color always

cargo_new inventory
cat >"$SRC/inventory/src/main.rs" <<'EOF'
mod stock;

fn main() {
    let mut s = stock::Stock::default();
    s.restock("bolt", 10);
    println!("{}", s.total());
}
EOF
cat >"$SRC/inventory/src/stock.rs" <<'EOF'
#[derive(Default)]
pub struct Stock {
    items: Vec<(String, u32)>,
}

impl Stock {
    pub fn restock(&mut self, name: &str, qty: u32) {
        let first = &self.items;
        self.items.push((name.to_string(), qty));
        println!("first batch had {} items", first.len());
    }

    pub fn total(&self) -> u32 {
        self.items.iter().map(|(_, q)| q).sum()
    }
}
EOF
run rust-e0502-borrow-conflict "$SRC/inventory" cargo build --color never

cargo_new cachecell
cat >"$SRC/cachecell/src/main.rs" <<'EOF'
mod cache;

fn main() {
    let c = cache::Cache::new();
    c.insert("a", 1);
    println!("{}", c.refresh_all());
}
EOF
cat >"$SRC/cachecell/src/cache.rs" <<'EOF'
use std::cell::RefCell;
use std::collections::HashMap;

pub struct Cache {
    entries: RefCell<HashMap<String, u64>>,
}

impl Cache {
    pub fn new() -> Self {
        Cache { entries: RefCell::new(HashMap::new()) }
    }

    pub fn insert(&self, k: &str, v: u64) {
        self.entries.borrow_mut().insert(k.to_string(), v);
    }

    pub fn refresh_all(&self) -> u64 {
        let view = self.entries.borrow();
        for (k, v) in view.iter() {
            // re-entrant mutation while `view` is alive
            self.entries.borrow_mut().insert(k.clone(), v + 1);
        }
        view.values().sum()
    }
}
EOF
(cd "$SRC/cachecell" && cargo build -q --color never >/dev/null 2>&1)
run rust-refcell-borrowmut-panic "$SRC/cachecell" env RUST_BACKTRACE=1 cargo run --color never

# ---------------------------------------------------------------- Python
mkdir -p "$SRC/pyshop/shop" "$SRC/pyshop/tests"
cat >"$SRC/pyshop/shop/__init__.py" <<'EOF'
EOF
cat >"$SRC/pyshop/shop/pricing.py" <<'EOF'
import string

TEMPLATES = {"receipt": string.Template("Order $order_id for $customer: $total")}


def render_receipt(order):
    tpl = TEMPLATES["receipt"]
    # substitute() raises KeyError inside the standard library when a field is missing
    return tpl.substitute(order)


def price_of(catalog, sku):
    return catalog[sku]["price"]
EOF
cat >"$SRC/pyshop/shop/checkout.py" <<'EOF'
import json

from shop.pricing import price_of, render_receipt


class CheckoutError(Exception):
    pass


def total(catalog, skus):
    return sum(price_of(catalog, s) for s in skus)


def checkout(raw_cart):
    cart = json.loads(raw_cart)
    try:
        amount = total(cart["catalog"], cart["skus"])
    except KeyError as exc:
        raise CheckoutError(f"unknown sku {exc}") from exc
    return render_receipt({"order_id": 7, "total": amount})
EOF
cat >"$SRC/pyshop/keyerror_main.py" <<'EOF'
from shop.checkout import checkout

print(checkout('{"catalog": {"A1": {"price": 3}}, "skus": ["A1"]}'))
EOF
cat >"$SRC/pyshop/chained_main.py" <<'EOF'
import logging

from shop.checkout import checkout

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("shop")


def handle(req):
    try:
        return checkout(req)
    except Exception:
        log.info("checkout failed, writing audit record")
        audit = open("/nonexistent-dir/audit.log", "a")
        audit.write(req)


handle('{"catalog": {"A1": {"price": 3}}, "skus": ["B9"]}')
EOF
cat >"$SRC/pyshop/tests/test_pricing.py" <<'EOF'
import pytest

from shop.pricing import price_of


CATALOG = {"A1": {"price": 3}, "B2": {"price": 5}}


def test_price_known():
    assert price_of(CATALOG, "A1") == 3


def test_discounted_total():
    prices = [price_of(CATALOG, s) for s in ("A1", "B2")]
    assert sum(prices) * 0.9 == 7


@pytest.mark.parametrize("sku", ["A1", "B2"])
def test_positive(sku):
    assert price_of(CATALOG, sku) > 0
EOF
run python-keyerror "$SRC/pyshop" python3 keyerror_main.py
run python-chained-exception "$SRC/pyshop" python3 chained_main.py
if python3 -c 'import pytest' 2>/dev/null; then
  run python-pytest-failure "$SRC/pyshop" python3 -m pytest -p no:cacheprovider tests
else
  run python-pytest-failure "$SRC/pyshop" python3 -m unittest discover -s tests
fi

# ---------------------------------------------------------------- Node / TypeScript
mkdir -p "$SRC/nodeapp/src" "$SRC/nodeapp/node_modules/fake-orm"
cat >"$SRC/nodeapp/node_modules/fake-orm/index.js" <<'EOF'
// A tiny stand-in for a library: user callbacks run from inside node_modules frames.
exports.eachRow = function eachRow(rows, fn) {
  return rows.map((r, i) => fn(r, i));
};
EOF
cat >"$SRC/nodeapp/src/users.js" <<'EOF'
const orm = require('fake-orm');

function displayName(user) {
  return user.profile.name.trim();
}

function listNames(rows) {
  return orm.eachRow(rows, displayName);
}

module.exports = { listNames };
EOF
cat >"$SRC/nodeapp/src/main.js" <<'EOF'
const { listNames } = require('./users');
console.log('loading users');
console.log(listNames([{ profile: { name: ' ada ' } }, { id: 2 }]));
EOF
cat >"$SRC/nodeapp/src/sync.mjs" <<'EOF'
async function fetchQuota(account) {
  await new Promise((r) => setTimeout(r, 5));
  if (!account.plan) {
    throw new RangeError(`quota unavailable for account ${account.id}`);
  }
  return account.plan.quota;
}

async function syncAll(accounts) {
  const quotas = accounts.map((a) => fetchQuota(a)); // no await / catch: rejection is unhandled
  console.log('sync started for', quotas.length, 'accounts');
}

syncAll([{ id: 'acct_9', plan: null }]);
setTimeout(() => console.log('never printed'), 50);
EOF
run node-typeerror-undefined "$SRC/nodeapp" node src/main.js
cat >"$SRC/nodeapp/src/billing.mjs" <<'EOF'
function chargeLater(invoice) {
  // a legacy callback API wrapped by hand: it rejects with a plain string, not an Error
  return new Promise((resolve, reject) => {
    setTimeout(() => (invoice.card ? resolve(invoice.total) : reject(`card missing for ${invoice.id}`)), 5);
  });
}

export function runBilling(invoices) {
  for (const inv of invoices) chargeLater(inv).then((t) => console.log('charged', t));
}

runBilling([{ id: 'inv_17', total: 1200, card: null }]);
EOF
run node-unhandled-rejection "$SRC/nodeapp" node src/billing.mjs
run node-async-throw "$SRC/nodeapp" node src/sync.mjs

mkdir -p "$SRC/tsapp/src"
cat >"$SRC/tsapp/tsconfig.json" <<'EOF'
{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "commonjs", "noEmit": true }, "include": ["src"] }
EOF
cat >"$SRC/tsapp/src/model.ts" <<'EOF'
export interface User {
  id: number;
  email: string;
}

export function findUser(users: User[], id: number): User | undefined {
  return users.find((u) => u.id === id);
}
EOF
cat >"$SRC/tsapp/src/service.ts" <<'EOF'
import { User, findUser } from './model';

export function greet(users: User[], id: string): string {
  const u = findUser(users, id);
  return `hello ${u?.name}`;
}
EOF
run ts-tsc-errors "$SRC/tsapp" "$ROOT/node_modules/.bin/tsc" -p . --pretty false

# ---------------------------------------------------------------- C++ / AddressSanitizer
mkdir -p "$SRC/cppq/src"
cat >"$SRC/cppq/src/queue.cpp" <<'EOF'
#include <cstdio>

struct Job { int id; int priority; };

Job* make_job(int id) { return new Job{id, 1}; }

int drain(Job* j) {
  delete j;
  return 0;
}

int main() {
  Job* j = make_job(42);
  drain(j);
  std::printf("job %d\n", j->priority);  // j was freed in drain()
  return 0;
}
EOF
(cd "$SRC/cppq" && g++ -g -O0 -fsanitize=address -fno-omit-frame-pointer src/queue.cpp -o queue) >/dev/null 2>&1
run cpp-asan-heap-use-after-free "$SRC/cppq" ./queue

# ---------------------------------------------------------------- Go
if command -v go >/dev/null; then
  mkdir -p "$SRC/gopipe"
  printf 'module example.com/gopipe\n\ngo 1.19\n' >"$SRC/gopipe/go.mod"
  mkdir -p "$SRC/gopipe/cmd/deadlock" "$SRC/gopipe/cmd/nilmap" "$SRC/gopipe/registry"
  cat >"$SRC/gopipe/cmd/deadlock/main.go" <<'EOF'
package main

import "fmt"

func produce(out chan<- int, n int) {
	for i := 0; i < n; i++ {
		out <- i
	}
}

func main() {
	results := make(chan int)
	produce(results, 3) // unbuffered send with no receiver yet
	fmt.Println(<-results)
}
EOF
  cat >"$SRC/gopipe/registry/registry.go" <<'EOF'
package registry

type Registry struct {
	services map[string]string
}

func (r *Registry) Add(name, addr string) {
	r.services[name] = addr
}
EOF
  cat >"$SRC/gopipe/cmd/nilmap/main.go" <<'EOF'
package main

import "example.com/gopipe/registry"

func main() {
	var r registry.Registry
	r.Add("billing", "10.0.0.7:8080")
}
EOF
  export GOFLAGS=-mod=mod GOCACHE="$SRC/.gocache" GOPATH="$SRC/.gopath"
  run go-deadlock "$SRC/gopipe" go run ./cmd/deadlock
  run go-nil-map-panic "$SRC/gopipe" go run ./cmd/nilmap
fi

# ---------------------------------------------------------------- test runners: cargo test, go test, node --test
cargo_new fees
cat >"$SRC/fees/src/lib.rs" <<'EOF'
pub fn fee_cents(amount_cents: u64) -> u64 {
    // 2.9% + 30c, rounded down (the test expects rounding half up)
    amount_cents * 29 / 1000 + 30
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_amount() {
        assert_eq!(fee_cents(100), 32);
    }

    #[test]
    fn rounding_half_up() {
        assert_eq!(fee_cents(1050), 61, "1050 * 2.9% = 30.45 -> 30, plus 30 = 60? expected 61");
    }
}
EOF
(cd "$SRC/fees" && cargo test --no-run -q --color never >/dev/null 2>&1)
run rust-cargo-test-failure "$SRC/fees" cargo test --color never

if command -v go >/dev/null; then
  mkdir -p "$SRC/gopipe/quota"
  cat >"$SRC/gopipe/quota/quota.go" <<'EOF'
package quota

func Remaining(limit, used int) int {
	if used > limit {
		return 0
	}
	return limit - used - 1
}
EOF
  cat >"$SRC/gopipe/quota/quota_test.go" <<'EOF'
package quota

import "testing"

func TestRemaining(t *testing.T) {
	if got := Remaining(10, 3); got != 7 {
		t.Errorf("Remaining(10, 3) = %d, want 7", got)
	}
}

func TestExhausted(t *testing.T) {
	if got := Remaining(3, 5); got != 0 {
		t.Errorf("Remaining(3, 5) = %d, want 0", got)
	}
}
EOF
  run go-test-failure "$SRC/gopipe" go test ./quota/
fi

mkdir -p "$SRC/nodeapp/test"
cat >"$SRC/nodeapp/src/slug.js" <<'EOF'
exports.slugify = (title) => title.toLowerCase().replace(/ /g, '-');
EOF
cat >"$SRC/nodeapp/test/slug.test.js" <<'EOF'
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { slugify } = require('../src/slug');

test('lowercases', () => {
  assert.equal(slugify('Hello'), 'hello');
});

test('collapses whitespace runs', () => {
  assert.equal(slugify('Hello   World'), 'hello-world');
});
EOF
run node-test-failure "$SRC/nodeapp" node --test test/

# ---------------------------------------------------------------- more error families (one real log each)
cargo_new config
cat >"$SRC/config/src/main.rs" <<'EOF'
use std::collections::HashMap;

fn port(settings: &HashMap<&str, &str>) -> u16 {
    settings.get("port").unwrap().parse().unwrap()
}

fn main() {
    let mut s = HashMap::new();
    s.insert("host", "localhost");
    println!("{}", port(&s));
}
EOF
(cd "$SRC/config" && cargo build -q --color never >/dev/null 2>&1)
run rust-unwrap-none-panic "$SRC/config" env RUST_BACKTRACE=0 cargo run -q --color never

mkdir -p "$SRC/pyshop/shop"
cat >"$SRC/pyshop/shop/export.py" <<'EOF'
import yaml_exporter_v2  # renamed package, old name still imported here


def export(rows):
    return yaml_exporter_v2.dump(rows)
EOF
cat >"$SRC/pyshop/export_main.py" <<'EOF'
from shop.export import export

print(export([{"sku": "A1"}]))
EOF
run python-module-not-found "$SRC/pyshop" python3 export_main.py

cat >"$SRC/nodeapp/src/report.js" <<'EOF'
const users = require('./users');

function buildReport(rows) {
  // users exports { listNames }, not a default function
  return users(rows).join(', ');
}

console.log(buildReport([{ profile: { name: 'ada' } }]));
EOF
run node-not-a-function "$SRC/nodeapp" node src/report.js

cat >"$SRC/tsapp/src/lookup.ts" <<'EOF'
import { User, findUser } from './model';

export function emailOf(users: User[], id: number): string {
  const u = findUser(users, id);
  return u.email.toLowerCase();
}
EOF
rm -f "$SRC/tsapp/src/service.ts"
run ts-possibly-undefined "$SRC/tsapp" "$ROOT/node_modules/.bin/tsc" -p . --pretty false

mkdir -p "$SRC/cppq/src"
cat >"$SRC/cppq/src/ring.cpp" <<'EOF'
#include <cstdio>

int sum_last(const int* xs, int n) {
  int total = 0;
  for (int i = 0; i <= n; i++) total += xs[i];  // off by one: reads xs[n]
  return total;
}

int main() {
  int* xs = new int[4]{1, 2, 3, 4};
  std::printf("%d\n", sum_last(xs, 4));
  delete[] xs;
  return 0;
}
EOF
(cd "$SRC/cppq" && g++ -g -O0 -fsanitize=address -fno-omit-frame-pointer src/ring.cpp -o ring) >/dev/null 2>&1
run cpp-asan-heap-buffer-overflow "$SRC/cppq" ./ring

cat >"$SRC/cppq/src/shapes.cpp" <<'EOF'
#include <string>
#include <vector>

struct Shape { std::string name; double area; };

double total_area(const std::vector<Shape>& shapes) {
  double t = 0;
  for (const auto& s : shapes) t += s.area;
  return t;
}

int main() {
  std::vector<Shape*> shapes;
  return total_area(shapes) > 0;
}
EOF
run cpp-type-mismatch "$SRC/cppq" g++ -c src/shapes.cpp -o /dev/null

if command -v go >/dev/null; then
  mkdir -p "$SRC/gopipe/cmd/nilptr" "$SRC/gopipe/store"
  cat >"$SRC/gopipe/store/store.go" <<'EOF'
package store

type Conn struct{ Addr string }

type Store struct{ conn *Conn }

func Open(addr string) (*Store, error) {
	if addr == "" {
		return nil, nil // bug: no error for an empty address
	}
	return &Store{conn: &Conn{Addr: addr}}, nil
}

func (s *Store) Addr() string { return s.conn.Addr }
EOF
  cat >"$SRC/gopipe/cmd/nilptr/main.go" <<'EOF'
package main

import (
	"fmt"

	"example.com/gopipe/store"
)

func main() {
	s, _ := store.Open("")
	fmt.Println(s.Addr())
}
EOF
  run go-nil-pointer "$SRC/gopipe" go run ./cmd/nilptr
fi

# ---------------------------------------------------------------- long logs with one buried error
# A real C build of 1,100 generated translation units via make -k: every progress line is real output, a few
# real -Wall warnings add noise, and translation unit 0551 has one real compile error.
mkdir -p "$SRC/bigbuild/src" "$SRC/bigbuild/build"
for i in $(seq -w 1 1100); do
  if [ "$i" = "0551" ]; then
    printf '#include "common.h"\n\nint mod_%s_sum(const int *xs, int n) {\n  int total = 0;\n  for (int k = 0; k < n; k++)\n    total += xs[k];\n  return totl / n;\n}\n' "$i" >"$SRC/bigbuild/src/mod_$i.c"
  elif [ $((10#$i % 97)) -eq 0 ]; then
    printf '#include "common.h"\n\nint mod_%s_sum(const int *xs, int n) {\n  int unused_%s = 0;\n  int total = 0;\n  for (int k = 0; k < n; k++)\n    total += xs[k];\n  return total;\n}\n' "$i" "$i" >"$SRC/bigbuild/src/mod_$i.c"
  else
    printf '#include "common.h"\n\nint mod_%s_sum(const int *xs, int n) {\n  int total = 0;\n  for (int k = 0; k < n; k++)\n    total += xs[k];\n  return total;\n}\n' "$i" >"$SRC/bigbuild/src/mod_$i.c"
  fi
done
printf '#pragma once\n#include <stddef.h>\n' >"$SRC/bigbuild/src/common.h"
cat >"$SRC/bigbuild/Makefile" <<'EOF'
SRCS := $(sort $(wildcard src/*.c))
OBJS := $(patsubst src/%.c,build/%.o,$(SRCS))
all: libbig.a
build/%.o: src/%.c
	cc -c -O1 -Wall -Isrc $< -o $@
libbig.a: $(OBJS)
	ar rcs $@ $^
EOF
run long-c-build-buried-error "$SRC/bigbuild" make -k -j1

# A pytest run of 1,200 parametrised cases with one real failure in the middle.
mkdir -p "$SRC/pybig/tests"
cat >"$SRC/pybig/rates.py" <<'EOF'
def convert(amount_cents, rate_ppm):
    if rate_ppm == 613_000:
        # a rounding bug only this rate hits
        return amount_cents * rate_ppm // 1_000_000 + 1
    return amount_cents * rate_ppm // 1_000_000
EOF
cat >"$SRC/pybig/tests/test_rates.py" <<'EOF'
import pytest

from rates import convert


@pytest.mark.parametrize("rate", [1_000 * k for k in range(1, 1201)])
def test_convert_matches_reference(rate):
    expected = 100_000 * rate // 1_000_000
    assert convert(100_000, rate) == expected
EOF
if python3 -c 'import pytest' 2>/dev/null; then
  run long-pytest-one-failure "$SRC/pybig" env PYTHONPATH=. python3 -m pytest -v -p no:cacheprovider tests
fi

# ---------------------------------------------------------------- issue #15: every common runner and error shape
for part in "$ROOT"/scripts/capture-fixtures.d/*.sh; do
  # shellcheck source=/dev/null
  . "$part"
done

echo "fixtures in $OUT"
