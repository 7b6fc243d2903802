# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT, $NPM_TOOLS and run()).
# More runner variants: pytest --tb=native and a strict XPASS, go test stopped by vet, a node --test `before`
# hook failure, a mocha timeout.

if python3 -c 'import pytest' 2>/dev/null; then
  PYT="python3 -m pytest -p no:cacheprovider -p no:benchmark -p no:hypothesispytest"
  run pytest-tb-native "$SRC/pyorders" $PYT --tb=native tests/test_report.py
  mkdir -p "$SRC/pyorders/tests_strict"
  cat >"$SRC/pyorders/tests_strict/test_tax_known_bugs.py" <<'PY'
from decimal import Decimal

import pytest

from orders.tax import sales_tax


@pytest.mark.xfail(strict=True, reason="NY rate rounding bug #214")
def test_new_york_rate():
    assert sales_tax("10.00", "NY") == Decimal("0.40")
PY
  cp "$SRC/pyorders/tests/conftest.py" "$SRC/pyorders/tests_strict/conftest.py"
  run pytest-xpass-strict "$SRC/pyorders" $PYT -rX tests_strict
fi

if command -v go >/dev/null; then
  G="$SRC/govet"
  mkdir -p "$G/invoice"
  printf 'module example.com/govet\n\ngo 1.19\n' >"$G/go.mod"
  cat >"$G/invoice/invoice.go" <<'GO'
package invoice

import "fmt"

type Invoice struct {
	Number string
	Cents  int64
}

func (i Invoice) Label() string {
	return fmt.Sprintf("%s: %d.%02d", i.Number, i.Cents/100, i.Cents%100)
}
GO
  cat >"$G/invoice/invoice_test.go" <<'GO'
package invoice

import "testing"

func TestLabel(t *testing.T) {
	inv := Invoice{Number: "INV-9", Cents: 1205}
	if got := inv.Label(); got != "INV-9: 12.05" {
		t.Errorf("Label() = %d, want %q", got, "INV-9: 12.05")
	}
}
GO
  export GOFLAGS=-mod=mod GOCACHE="$SRC/.gocache" GOPATH="$SRC/.gopath"
  run go-test-vet-failure "$G" go test ./invoice/
fi

mkdir -p "$SRC/nodehook/src" "$SRC/nodehook/test"
cat >"$SRC/nodehook/src/db.js" <<'JS'
const fs = require('node:fs');

function openFixtureDb(path) {
  const rows = JSON.parse(fs.readFileSync(path, 'utf8'));
  return { rows, count: () => rows.length };
}

module.exports = { openFixtureDb };
JS
cat >"$SRC/nodehook/test/users.test.js" <<'JS'
const { describe, it, before } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { openFixtureDb } = require('../src/db');

describe('users table', () => {
  let db;
  before(() => {
    db = openFixtureDb(path.join(__dirname, 'fixtures', 'users.json'));
  });

  it('has the seeded users', () => {
    assert.equal(db.count(), 3);
  });
});
JS
run node-test-before-hook-failure "$SRC/nodehook" node --test --test-reporter=spec test/

if [ -d "$NPM_TOOLS/mocha" ]; then
  mkdir -p "$SRC/mochatimeout/src" "$SRC/mochatimeout/test"
  printf '{ "name": "mochatimeout", "private": true }\n' >"$SRC/mochatimeout/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/mochatimeout/node_modules"
  cat >"$SRC/mochatimeout/src/retry.js" <<'JS'
function withRetry(fn, attempts, delayMs) {
  return new Promise((resolve, reject) => {
    const attempt = (left) => {
      fn().then(resolve, (err) => (left > 1 ? setTimeout(() => attempt(left - 1), delayMs) : reject(err)));
    };
    attempt(attempts);
  });
}

module.exports = { withRetry };
JS
  cat >"$SRC/mochatimeout/test/retry.spec.js" <<'JS'
const assert = require('node:assert');
const { withRetry } = require('../src/retry');

describe('withRetry', function () {
  this.timeout(500);

  it('gives up after the last attempt', async function () {
    const failing = () => Promise.reject(new Error('503 from upstream'));
    await assert.rejects(withRetry(failing, 5, 200), /503/);
  });
});
JS
  run mocha-timeout "$SRC/mochatimeout" node node_modules/mocha/bin/mocha.js test/
fi
