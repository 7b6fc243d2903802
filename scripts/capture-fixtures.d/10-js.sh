# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT, $NPM_TOOLS and run()).
# JavaScript runners: node --test reporters, Node `cause` chains, vitest, jest, mocha, eslint.

# ---- a small cart service shared by the node --test, vitest, jest and mocha projects
js_cart_sources() { # DIR MODULE-STYLE(cjs|esm)
  local d="$1"
  mkdir -p "$d/src/pricing" "$d/test"
  if [ "$2" = esm ]; then
    cat >"$d/src/pricing/money.js" <<'JS'
export function toCents(amount) {
  if (typeof amount !== 'number') throw new TypeError(`amount must be a number, got ${typeof amount}`);
  return Math.round(amount * 100);
}

export function applyRate(cents, ratePct) {
  // truncates instead of rounding half up: 1999 * 8.25% = 164.92 -> 164
  return cents + Math.trunc((cents * ratePct) / 100);
}
JS
    cat >"$d/src/cart.js" <<'JS'
import { applyRate, toCents } from './pricing/money.js';

export class Cart {
  constructor(region) {
    this.region = region;
    this.lines = [];
  }

  add(sku, price, qty = 1) {
    this.lines.push({ sku, cents: toCents(price), qty });
    return this;
  }

  subtotal() {
    return this.lines.reduce((sum, l) => sum + l.cents * l.qty, 0);
  }

  total() {
    return applyRate(this.subtotal(), this.region.taxPct);
  }
}
JS
  else
    cat >"$d/src/pricing/money.js" <<'JS'
function toCents(amount) {
  if (typeof amount !== 'number') throw new TypeError(`amount must be a number, got ${typeof amount}`);
  return Math.round(amount * 100);
}

function applyRate(cents, ratePct) {
  // truncates instead of rounding half up: 1999 * 8.25% = 164.92 -> 164
  return cents + Math.trunc((cents * ratePct) / 100);
}

module.exports = { toCents, applyRate };
JS
    cat >"$d/src/cart.js" <<'JS'
const { applyRate, toCents } = require('./pricing/money');

class Cart {
  constructor(region) {
    this.region = region;
    this.lines = [];
  }

  add(sku, price, qty = 1) {
    this.lines.push({ sku, cents: toCents(price), qty });
    return this;
  }

  subtotal() {
    return this.lines.reduce((sum, l) => sum + l.cents * l.qty, 0);
  }

  total() {
    return applyRate(this.subtotal(), this.region.taxPct);
  }
}

module.exports = { Cart };
JS
  fi
}

# ---- node --test with the spec, tap and dot reporters (one assertion failure, one TypeError from src/)
js_cart_sources "$SRC/cartnode" cjs
cat >"$SRC/cartnode/test/cart.test.js" <<'JS'
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { Cart } = require('../src/cart');

describe('Cart', () => {
  it('sums line items', () => {
    const cart = new Cart({ taxPct: 0 }).add('A1', 2.5, 2).add('B2', 1);
    assert.equal(cart.subtotal(), 600);
  });

  it('adds sales tax rounded half up', () => {
    const cart = new Cart({ taxPct: 8.25 }).add('A1', 19.99);
    assert.equal(cart.total(), 2164);
  });
});
JS
cat >"$SRC/cartnode/test/parse.test.js" <<'JS'
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { Cart } = require('../src/cart');

test('accepts prices from the CSV import', () => {
  const row = { sku: 'C3', price: '4.10' }; // the importer leaves prices as strings
  const cart = new Cart({ taxPct: 0 }).add(row.sku, row.price);
  assert.equal(cart.subtotal(), 410);
});
JS
run node-test-spec-reporter "$SRC/cartnode" node --test --test-reporter=spec test/cart.test.js
run node-test-tap-reporter "$SRC/cartnode" node --test --test-reporter=tap test/parse.test.js
run node-test-dot-reporter "$SRC/cartnode" node --test --test-reporter=dot test/

# ---- an uncaught error whose `cause` chain is three deep (fs error -> config error -> boot error)
mkdir -p "$SRC/bootnode/src/config" "$SRC/bootnode/config"
cat >"$SRC/bootnode/src/config/load.js" <<'JS'
const fs = require('node:fs');
const path = require('node:path');

class ConfigError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'ConfigError';
  }
}

function readConfig(dir, env) {
  const file = path.join(dir, `${env}.json`);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot load ${env} config from ${file}`, { cause: err });
  }
}

module.exports = { readConfig, ConfigError };
JS
cat >"$SRC/bootnode/src/server.js" <<'JS'
const { readConfig } = require('./config/load');

class BootError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'BootError';
  }
}

function boot(env) {
  try {
    const cfg = readConfig(`${__dirname}/../config`, env);
    return { port: cfg.port };
  } catch (err) {
    throw new BootError(`server failed to boot in ${env}`, { cause: err });
  }
}

console.log('booting');
boot(process.env.APP_ENV || 'staging');
JS
echo '{ "port": 8080 }' >"$SRC/bootnode/config/production.json"
run node-error-cause-chain "$SRC/bootnode" node src/server.js

# ---- vitest, jest, mocha, eslint: real packages from the scratch npm folder, linked as the project's node_modules
if [ -d "$NPM_TOOLS/vitest" ]; then
  js_cart_sources "$SRC/cartvite" esm
  printf '{ "name": "cartvite", "private": true, "type": "module" }\n' >"$SRC/cartvite/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/cartvite/node_modules"
  cat >"$SRC/cartvite/test/cart.test.js" <<'JS'
import { describe, expect, it } from 'vitest';
import { Cart } from '../src/cart.js';

describe('Cart totals', () => {
  it('sums line items', () => {
    expect(new Cart({ taxPct: 0 }).add('A1', 2.5, 2).subtotal()).toBe(500);
  });

  it('adds sales tax rounded half up', () => {
    const cart = new Cart({ taxPct: 8.25 }).add('A1', 19.99);
    expect(cart.total()).toBe(2164);
  });
});
JS
  cat >"$SRC/cartvite/test/import.test.js" <<'JS'
import { describe, expect, it } from 'vitest';
import { Cart } from '../src/cart.js';

function importRows(rows) {
  const cart = new Cart({ taxPct: 0 });
  for (const r of rows) cart.add(r.sku, r.price, r.qty);
  return cart;
}

describe('CSV import', () => {
  it('keeps quantities from the file', () => {
    const cart = importRows([{ sku: 'C3', price: '4.10', qty: 3 }]);
    expect(cart.subtotal()).toBe(1230);
  });
});
JS
  run vitest-assertion "$SRC/cartvite" node node_modules/vitest/vitest.mjs run test/cart.test.js
  run vitest-typeerror-in-src "$SRC/cartvite" node node_modules/vitest/vitest.mjs run --reporter=verbose test/import.test.js
fi

if [ -d "$NPM_TOOLS/jest" ]; then
  js_cart_sources "$SRC/cartjest" cjs
  printf '{ "name": "cartjest", "private": true }\n' >"$SRC/cartjest/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/cartjest/node_modules"
  cat >"$SRC/cartjest/test/cart.test.js" <<'JS'
const { Cart } = require('../src/cart');

describe('Cart totals', () => {
  test('sums line items', () => {
    expect(new Cart({ taxPct: 0 }).add('A1', 2.5, 2).subtotal()).toBe(500);
  });

  test('reports lines for the receipt', () => {
    const cart = new Cart({ taxPct: 0 }).add('A1', 2.5, 2).add('B2', 1);
    expect(cart.lines).toEqual([
      { sku: 'A1', cents: 250, qty: 2 },
      { sku: 'B2', cents: 100, qty: 2 },
    ]);
  });
});
JS
  cat >"$SRC/cartjest/test/import.test.js" <<'JS'
const { Cart } = require('../src/cart');

function importRows(rows) {
  const cart = new Cart({ taxPct: 0 });
  for (const r of rows) cart.add(r.sku, r.price, r.qty);
  return cart;
}

test('CSV import keeps quantities from the file', () => {
  const cart = importRows([{ sku: 'C3', price: '4.10', qty: 3 }]);
  expect(cart.subtotal()).toBe(1230);
});
JS
  run jest-toequal-diff "$SRC/cartjest" node node_modules/jest/bin/jest.js --ci test/cart.test.js
  run jest-typeerror-in-src "$SRC/cartjest" node node_modules/jest/bin/jest.js --ci test/import.test.js
fi

if [ -d "$NPM_TOOLS/mocha" ]; then
  js_cart_sources "$SRC/cartmocha" cjs
  printf '{ "name": "cartmocha", "private": true }\n' >"$SRC/cartmocha/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/cartmocha/node_modules"
  cat >"$SRC/cartmocha/test/cart.spec.js" <<'JS'
const assert = require('node:assert');
const { Cart } = require('../src/cart');

describe('Cart', function () {
  describe('#total()', function () {
    it('is the subtotal when there is no tax', function () {
      assert.strictEqual(new Cart({ taxPct: 0 }).add('A1', 3).total(), 300);
    });

    it('adds sales tax rounded half up', function () {
      const cart = new Cart({ taxPct: 8.25 }).add('A1', 19.99);
      assert.strictEqual(cart.total(), 2164);
    });
  });

  describe('#add()', function () {
    it('rejects prices that are not numbers', function () {
      assert.throws(() => new Cart({ taxPct: 0 }).add('C3', '4.10'), TypeError);
    });
  });
});
JS
  run mocha-spec-reporter "$SRC/cartmocha" node node_modules/mocha/bin/mocha.js test/
  run mocha-tap-reporter "$SRC/cartmocha" node node_modules/mocha/bin/mocha.js --reporter tap test/
fi

if [ -d "$NPM_TOOLS/eslint" ]; then
  js_cart_sources "$SRC/carteslint" cjs
  printf '{ "name": "carteslint", "private": true }\n' >"$SRC/carteslint/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/carteslint/node_modules"
  cat >"$SRC/carteslint/eslint.config.js" <<'JS'
const js = require('@eslint/js');

module.exports = [
  js.configs.recommended,
  { languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', console: 'readonly' } } },
];
JS
  cat >"$SRC/carteslint/src/receipt.js" <<'JS'
const { Cart } = require('./cart');

function renderReceipt(cart, customer) {
  const header = `Receipt for ${customer.name}`;
  const lines = cart.lines.map((l) => `${l.sku} x${l.qty}`);
  if (cart.total() == 0) {
    return header;
  }
  return [header, ...lines, `total: ${formatCents(cart.total())}`].join('\n');
}

module.exports = { renderReceipt, Cart };
JS
  run eslint-stylish "$SRC/carteslint" node node_modules/eslint/bin/eslint.js src/
fi
