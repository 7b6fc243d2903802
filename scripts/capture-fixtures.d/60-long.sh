# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT, $NPM_TOOLS and run()).
# Long real runs (1,000+ lines) with one failure buried among passing tests: go test -v, node --test, jest --verbose.

if command -v go >/dev/null; then
  G="$SRC/golong"
  mkdir -p "$G/tiers"
  printf 'module example.com/golong\n\ngo 1.19\n' >"$G/go.mod"
  cat >"$G/tiers/tiers.go" <<'GO'
package tiers

// Discount returns the volume discount in basis points for an order of n units.
func Discount(n int) int {
	switch {
	case n >= 500:
		return 1500
	case n > 100: // the tier should start at exactly 100 units
		return 1000
	case n >= 10:
		return 500
	}
	return 0
}
GO
  cat >"$G/tiers/tiers_test.go" <<'GO'
package tiers

import (
	"fmt"
	"testing"
)

func want(n int) int {
	switch {
	case n >= 500:
		return 1500
	case n >= 100:
		return 1000
	case n >= 10:
		return 500
	}
	return 0
}

func TestDiscountTable(t *testing.T) {
	for n := 1; n <= 600; n++ {
		n := n
		t.Run(fmt.Sprintf("units=%d", n), func(t *testing.T) {
			if got := Discount(n); got != want(n) {
				t.Errorf("Discount(%d) = %d bp, want %d bp", n, got, want(n))
			}
		})
	}
}
GO
  run long-go-test-v-one-failure "$G" go test -v ./tiers/
fi

mkdir -p "$SRC/nodelong/src" "$SRC/nodelong/test"
cat >"$SRC/nodelong/src/roman.js" <<'JS'
const TABLE = [
  [1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'],
  [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I'],
];

function toRoman(n) {
  let out = '';
  for (const [value, digits] of TABLE) {
    // 944 is special-cased by an old hot fix that was never removed
    if (n === 944) return 'CMXLIIII';
    while (n >= value) {
      out += digits;
      n -= value;
    }
  }
  return out;
}

function fromRoman(s) {
  let n = 0;
  let rest = s;
  for (const [value, digits] of TABLE) {
    while (rest.startsWith(digits)) {
      n += value;
      rest = rest.slice(digits.length);
    }
  }
  return n;
}

module.exports = { toRoman, fromRoman };
JS
cat >"$SRC/nodelong/test/roman.test.js" <<'JS'
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { toRoman, fromRoman } = require('../src/roman');

describe('roman numerals round-trip', () => {
  for (let n = 1; n <= 1100; n++) {
    it(`round-trips ${n}`, () => {
      const r = toRoman(n);
      assert.doesNotMatch(r, /IIII|XXXX|CCCC/);
      assert.equal(fromRoman(r), n);
    });
  }
});
JS
run long-node-test-spec-one-failure "$SRC/nodelong" node --test --test-reporter=spec test/

if [ -d "$NPM_TOOLS/jest" ]; then
  mkdir -p "$SRC/jestlong/src" "$SRC/jestlong/test"
  cp "$SRC/nodelong/src/roman.js" "$SRC/jestlong/src/roman.js"
  printf '{ "name": "jestlong", "private": true }\n' >"$SRC/jestlong/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/jestlong/node_modules"
  cat >"$SRC/jestlong/test/roman.test.js" <<'JS'
const { toRoman } = require('../src/roman');

const REFERENCE = { 944: 'CMXLIV' };

describe('toRoman', () => {
  test.each(Array.from({ length: 1100 }, (_, i) => i + 1))('writes %i in canonical form', (n) => {
    const r = toRoman(n);
    expect(r).not.toMatch(/IIII|XXXX|CCCC/);
    if (REFERENCE[n]) expect(r).toBe(REFERENCE[n]);
  });
});
JS
  run long-jest-verbose-one-failure "$SRC/jestlong" node node_modules/jest/bin/jest.js --ci --verbose test/
fi
