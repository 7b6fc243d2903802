# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT, $ROOT, $NPM_TOOLS, cargo_new and run()).
# A second shape for runners that had one: tsc --pretty, eslint over several files, cargo test with a panic inside
# library code, Go "concurrent map writes", mocha with an error thrown from src/, pytest with a chained exception,
# LeakSanitizer, a Node ESM import error, a Python SyntaxError on import.

# ---- tsc --pretty: colours, code frames and the "Found N errors" footer
mkdir -p "$SRC/tsshop/src/api"
cat >"$SRC/tsshop/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "commonjs", "noEmit": true }, "include": ["src"] }
JSON
cat >"$SRC/tsshop/src/types.ts" <<'TS'
export interface Product {
  sku: string;
  priceCents: number;
  tags: string[];
}
TS
cat >"$SRC/tsshop/src/api/catalog.ts" <<'TS'
import { Product } from '../types';

export function parseProduct(raw: Record<string, string>): Product {
  return {
    sku: raw.sku,
    priceCents: raw.price,
    tags: raw.tags.split(','),
  };
}
TS
cat >"$SRC/tsshop/src/api/search.ts" <<'TS'
import { Product } from '../types';

export function byTag(products: Product[], tag) {
  return products.filter((p) => p.tags.includes(tag));
}
TS
run tsc-pretty-two-files "$SRC/tsshop" "$ROOT/node_modules/.bin/tsc" -p . --pretty true

# ---- eslint over several files with errors and warnings
if [ -d "$NPM_TOOLS/eslint" ]; then
  mkdir -p "$SRC/lintshop/src/routes"
  printf '{ "name": "lintshop", "private": true }\n' >"$SRC/lintshop/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/lintshop/node_modules"
  cat >"$SRC/lintshop/eslint.config.js" <<'JS'
const js = require('@eslint/js');

module.exports = [
  js.configs.recommended,
  {
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', console: 'readonly', process: 'readonly' } },
    rules: { eqeqeq: 'error', 'no-console': 'warn', 'prefer-const': 'warn' },
  },
];
JS
  cat >"$SRC/lintshop/src/routes/orders.js" <<'JS'
const db = require('../db');

function listOrders(req, res) {
  let limit = Number(req.query.limit || 20);
  console.log('listing orders', limit);
  const rows = db.query('select * from orders limit ?', [limit]);
  res.json(rows);
}

module.exports = { listOrders };
JS
  cat >"$SRC/lintshop/src/routes/refunds.js" <<'JS'
const db = require('../db');

function refund(req, res) {
  const order = db.find(req.params.id);
  if (order.status == 'refunded') {
    return res.status(409).end();
  }
  const amount = order.total;
  db.update(req.params.id, { status: 'refunded' });
  res.json({ refunded: ammount });
}

module.exports = { refund };
JS
  cat >"$SRC/lintshop/src/db.js" <<'JS'
module.exports = {
  query: () => [],
  find: (id) => ({ id, status: 'paid', total: 100 }),
  update: () => {},
};
JS
  run eslint-several-files "$SRC/lintshop" node node_modules/eslint/bin/eslint.js src/
fi

# ---- cargo test: a panic inside library code (index out of bounds) with a backtrace through std
cargo_new histogram
cat >"$SRC/histogram/src/lib.rs" <<'RS'
pub mod buckets;

pub use buckets::Histogram;
RS
cat >"$SRC/histogram/src/buckets.rs" <<'RS'
pub struct Histogram {
    bounds: Vec<u64>,
    counts: Vec<u64>,
}

impl Histogram {
    pub fn new(bounds: Vec<u64>) -> Self {
        let counts = vec![0; bounds.len()];
        Histogram { bounds, counts }
    }

    fn bucket_of(&self, value: u64) -> usize {
        self.bounds.iter().position(|b| value < *b).unwrap_or(self.bounds.len())
    }

    pub fn record(&mut self, value: u64) {
        let i = self.bucket_of(value);
        // values above the last bound have no overflow bucket
        self.counts[i] += 1;
    }

    pub fn count(&self, bucket: usize) -> u64 {
        self.counts[bucket]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_into_first_bucket() {
        let mut h = Histogram::new(vec![10, 100]);
        h.record(3);
        assert_eq!(h.count(0), 1);
    }

    #[test]
    fn records_values_above_last_bound() {
        let mut h = Histogram::new(vec![10, 100]);
        h.record(250);
        assert_eq!(h.count(2), 1);
    }
}
RS
(cd "$SRC/histogram" && cargo test --no-run -q --color never >/dev/null 2>&1)
run cargo-test-index-out-of-bounds "$SRC/histogram" env RUST_BACKTRACE=1 cargo test --color never

# ---- Go: fatal error "concurrent map writes" with several goroutines
if command -v go >/dev/null; then
  G="$SRC/gosessions"
  mkdir -p "$G/sessions" "$G/cmd/loadtest"
  printf 'module example.com/gosessions\n\ngo 1.19\n' >"$G/go.mod"
  cat >"$G/sessions/store.go" <<'GO'
package sessions

import "fmt"

type Store struct {
	byID map[string]int // no mutex: concurrent Touch calls corrupt the map
}

func NewStore() *Store { return &Store{byID: map[string]int{}} }

func (s *Store) Touch(user, n int) {
	s.byID[fmt.Sprintf("u%d-%d", user, n)]++
}
GO
  cat >"$G/cmd/loadtest/main.go" <<'GO'
package main

import (
	"fmt"
	"sync"

	"example.com/gosessions/sessions"
)

func simulate(s *sessions.Store, user int, wg *sync.WaitGroup) {
	defer wg.Done()
	for n := 0; n < 100000; n++ {
		s.Touch(user, n)
	}
}

func main() {
	s := sessions.NewStore()
	var wg sync.WaitGroup
	for u := 0; u < 4; u++ {
		wg.Add(1)
		go simulate(s, u, &wg)
	}
	wg.Wait()
	fmt.Println("done")
}
GO
  export GOFLAGS=-mod=mod GOCACHE="$SRC/.gocache" GOPATH="$SRC/.gopath"
  (cd "$G" && go build -o loadtest ./cmd/loadtest) >/dev/null 2>&1
  run go-concurrent-map-writes "$G" ./loadtest
fi

# ---- mocha: a TypeError thrown from src/ inside an async test
if [ -d "$NPM_TOOLS/mocha" ]; then
  mkdir -p "$SRC/mochaapi/src/clients" "$SRC/mochaapi/test"
  printf '{ "name": "mochaapi", "private": true }\n' >"$SRC/mochaapi/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/mochaapi/node_modules"
  cat >"$SRC/mochaapi/src/clients/weather.js" <<'JS'
async function fetchForecast(http, city) {
  const body = await http.get(`/forecast/${encodeURIComponent(city)}`);
  return body.days.map((d) => ({ day: d.date, high: d.temp.max }));
}

module.exports = { fetchForecast };
JS
  cat >"$SRC/mochaapi/src/report.js" <<'JS'
const { fetchForecast } = require('./clients/weather');

async function weeklyHighs(http, city) {
  const days = await fetchForecast(http, city);
  return Math.max(...days.map((d) => d.high));
}

module.exports = { weeklyHighs };
JS
  cat >"$SRC/mochaapi/test/report.spec.js" <<'JS'
const assert = require('node:assert');
const { weeklyHighs } = require('../src/report');

const fakeHttp = (body) => ({ get: async () => body });

describe('weeklyHighs', function () {
  it('returns the highest maximum of the week', async function () {
    const http = fakeHttp({ days: [{ date: 'mon', temp: { max: 21 } }, { date: 'tue', temp: { max: 25 } }] });
    assert.strictEqual(await weeklyHighs(http, 'Lyon'), 25);
  });

  it('copes with days the provider has no reading for', async function () {
    const http = fakeHttp({ days: [{ date: 'mon', temp: { max: 21 } }, { date: 'tue', temp: null }] });
    assert.strictEqual(await weeklyHighs(http, 'Lyon'), 21);
  });
});
JS
  run mocha-typeerror-in-src "$SRC/mochaapi" node node_modules/mocha/bin/mocha.js test/
fi

# ---- pytest: a chained exception (raise ... from) inside the code under test
if python3 -c 'import pytest' 2>/dev/null; then
  mkdir -p "$SRC/pyrates/rates" "$SRC/pyrates/tests"
  : >"$SRC/pyrates/rates/__init__.py"
  cat >"$SRC/pyrates/rates/feed.py" <<'PY'
import csv
import io


class FeedError(Exception):
    pass


def parse_feed(text):
    rows = csv.DictReader(io.StringIO(text))
    out = {}
    for row in rows:
        try:
            out[row["pair"]] = float(row["rate"])
        except ValueError as exc:
            raise FeedError(f"bad rate for {row['pair']}") from exc
    return out
PY
  cat >"$SRC/pyrates/tests/test_feed.py" <<'PY'
from rates.feed import parse_feed

FEED = "pair,rate\nEURUSD,1.0842\nUSDJPY,n/a\n"


def test_parses_every_pair():
    assert parse_feed(FEED) == {"EURUSD": 1.0842, "USDJPY": 151.20}
PY
  run pytest-chained-raise-from "$SRC/pyrates" env PYTHONPATH=. python3 -m pytest -p no:cacheprovider -p no:benchmark -p no:hypothesispytest tests
fi

# ---- LeakSanitizer: a buffer allocated in a helper is never freed
mkdir -p "$SRC/leakq/src"
cat >"$SRC/leakq/src/buffer.c" <<'C'
#include <stdlib.h>
#include <string.h>

char *make_line(const char *text) {
  char *buf = malloc(64);
  strncpy(buf, text, 63);
  buf[63] = '\0';
  return buf;
}
C
cat >"$SRC/leakq/src/main.c" <<'C'
#include <stdio.h>

char *make_line(const char *text);

static void print_banner(void) {
  char *line = make_line("k0 log shipper starting");
  puts(line);  /* line is never freed */
}

int main(void) {
  print_banner();
  return 0;
}
C
(cd "$SRC/leakq" && gcc -g -O0 -fsanitize=address -fno-omit-frame-pointer src/main.c src/buffer.c -o shipper) >/dev/null 2>&1
run lsan-direct-leak "$SRC/leakq" env ASAN_OPTIONS=detect_leaks=1 ./shipper

# ---- Node ESM: a named import the module does not export
mkdir -p "$SRC/esmapp/src/lib"
printf '{ "name": "esmapp", "private": true, "type": "module" }\n' >"$SRC/esmapp/package.json"
cat >"$SRC/esmapp/src/lib/format.js" <<'JS'
export function formatPrice(cents) {
  return `$${(cents / 100).toFixed(2)}`;
}
JS
cat >"$SRC/esmapp/src/invoice.js" <<'JS'
import { formatPrice, formatDate } from './lib/format.js';

export function line(item) {
  return `${formatDate(item.date)} ${item.name} ${formatPrice(item.cents)}`;
}
JS
cat >"$SRC/esmapp/src/main.js" <<'JS'
import { line } from './invoice.js';

console.log(line({ date: new Date(), name: 'widget', cents: 1999 }));
JS
run node-esm-missing-export "$SRC/esmapp" node src/main.js

# ---- Python: a SyntaxError in a module found while importing it
mkdir -p "$SRC/pyjobs/jobs"
: >"$SRC/pyjobs/jobs/__init__.py"
cat >"$SRC/pyjobs/jobs/schedule.py" <<'PY'
from datetime import timedelta


def next_runs(start, every_minutes, count):
    step = timedelta(minutes=every_minutes)
    return [start + i * step for i in range(count)]


def describe(job):
    return f"{job['name']} every {job['every']} minutes"
PY
cat >"$SRC/pyjobs/jobs/cleanup.py" <<'PY'
import shutil
from pathlib import Path


def purge(root, keep):
    entries = sorted(Path(root).iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[keep:]
        shutil.rmtree(old)
PY
cat >"$SRC/pyjobs/run_jobs.py" <<'PY'
from jobs.schedule import describe
from jobs.cleanup import purge

print(describe({"name": "purge", "every": 60}))
purge("/tmp/k0-no-such-dir", 3)
PY
run python-syntaxerror-on-import "$SRC/pyjobs" python3 run_jobs.py
