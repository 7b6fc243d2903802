# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT, $ROOT, $NPM_TOOLS and run()).
# Everyday shapes: go build errors, a pytest collection error and "DID NOT RAISE", a jest timeout, a vitest
# toThrow mismatch, an EventEmitter 'error' event, Java's helpful NullPointerException, a RecursionError,
# a make-driven C link error, and a tsc run with many errors.

if command -v go >/dev/null; then
  G="$SRC/gobuild"
  mkdir -p "$G/cmd/api" "$G/httpx"
  printf 'module example.com/gobuild\n\ngo 1.19\n' >"$G/go.mod"
  cat >"$G/httpx/respond.go" <<'GO'
package httpx

import "net/http"

func JSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
GO
  cat >"$G/cmd/api/main.go" <<'GO'
package main

import (
	"encoding/json"
	"log"
	"net/http"
	"os"

	"example.com/gobuild/httpx"
)

func health(w http.ResponseWriter, r *http.Request) {
	body, err := json.Marshal(map[string]string{"status": "ok"})
	if err != nil {
		httpx.Error(w, err)
		return
	}
	httpx.JSON(w, http.StatusOK, body)
}

func main() {
	http.HandleFunc("/health", health)
	log.Fatal(http.ListenAndServe(":8080", nil))
}
GO
  export GOFLAGS=-mod=mod GOCACHE="$SRC/.gocache" GOPATH="$SRC/.gopath"
  run go-build-undefined "$G" go build ./...
fi

if python3 -c 'import pytest' 2>/dev/null; then
  PYT="python3 -m pytest -p no:cacheprovider -p no:benchmark -p no:hypothesispytest"
  mkdir -p "$SRC/pymail/mailer" "$SRC/pymail/tests"
  : >"$SRC/pymail/mailer/__init__.py"
  cat >"$SRC/pymail/mailer/templates.py" <<'PY'
def render(name, **fields):
    return f"Hello {fields['first_name']}, your order {fields['order']} has shipped."
PY
  cat >"$SRC/pymail/mailer/validate.py" <<'PY'
import re

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")


def check_address(addr):
    # accepts "a@b" without a dot in the domain: the test expects a ValueError
    if not EMAIL.match(addr):
        raise ValueError(f"invalid address {addr!r}")
    return addr.lower()
PY
  cat >"$SRC/pymail/tests/test_templates.py" <<'PY'
from mailer.templates import render
from mailer.transport import SmtpTransport


def test_shipping_mail():
    assert "order 42" in render("shipped", first_name="Ada", order=42)
PY
  cat >"$SRC/pymail/tests/test_validate.py" <<'PY'
import pytest

from mailer.validate import check_address


def test_lowercases():
    assert check_address("Ada@Example.com") == "ada@example.com"


def test_rejects_domain_without_dot():
    with pytest.raises(ValueError):
        check_address("ada@localhost")
PY
  run pytest-collection-error "$SRC/pymail" env PYTHONPATH=. $PYT tests/test_templates.py
  run pytest-did-not-raise "$SRC/pymail" env PYTHONPATH=. $PYT tests/test_validate.py
fi

if [ -d "$NPM_TOOLS/jest" ]; then
  mkdir -p "$SRC/jestasync/src" "$SRC/jestasync/test"
  printf '{ "name": "jestasync", "private": true }\n' >"$SRC/jestasync/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/jestasync/node_modules"
  cat >"$SRC/jestasync/src/queue.js" <<'JS'
class JobQueue {
  constructor() {
    this.waiting = [];
  }

  push(job) {
    this.waiting.push(job);
  }

  // resolves when the queue is empty; nothing ever drains it in the test
  drained() {
    return new Promise((resolve) => {
      if (this.waiting.length === 0) resolve();
    });
  }
}

module.exports = { JobQueue };
JS
  cat >"$SRC/jestasync/test/queue.test.js" <<'JS'
const { JobQueue } = require('../src/queue');

jest.setTimeout(300);

test('drains after the last job', async () => {
  const q = new JobQueue();
  q.push({ id: 1 });
  await q.drained();
  expect(q.waiting).toHaveLength(0);
});
JS
  run jest-async-timeout "$SRC/jestasync" node node_modules/jest/bin/jest.js --ci test/
fi

if [ -d "$NPM_TOOLS/vitest" ]; then
  mkdir -p "$SRC/vitecfg/src" "$SRC/vitecfg/test"
  printf '{ "name": "vitecfg", "private": true, "type": "module" }\n' >"$SRC/vitecfg/package.json"
  ln -sfn "$NPM_TOOLS" "$SRC/vitecfg/node_modules"
  cat >"$SRC/vitecfg/src/config.js" <<'JS'
export function parsePort(value) {
  const n = Number.parseInt(value, 10);
  if (Number.isNaN(n)) throw new TypeError(`port is not a number: ${value}`);
  return n;
}
JS
  cat >"$SRC/vitecfg/test/config.test.js" <<'JS'
import { describe, expect, it } from 'vitest';
import { parsePort } from '../src/config.js';

describe('parsePort', () => {
  it('rejects ports outside 1-65535', () => {
    expect(() => parsePort('70000')).toThrow(RangeError);
  });
});
JS
  run vitest-tothrow-not-thrown "$SRC/vitecfg" node node_modules/vitest/vitest.mjs run
fi

mkdir -p "$SRC/nodeevents/src"
cat >"$SRC/nodeevents/src/watcher.js" <<'JS'
const { EventEmitter } = require('node:events');
const fs = require('node:fs');

class ConfigWatcher extends EventEmitter {
  start(path) {
    fs.readFile(path, 'utf8', (err, text) => {
      if (err) return this.emit('error', err); // nobody listens for 'error'
      this.emit('change', JSON.parse(text));
    });
  }
}

module.exports = { ConfigWatcher };
JS
cat >"$SRC/nodeevents/src/main.js" <<'JS'
const { ConfigWatcher } = require('./watcher');

const w = new ConfigWatcher();
w.on('change', (cfg) => console.log('config', cfg));
w.start('/etc/k0-demo/app.json');
JS
run node-unhandled-error-event "$SRC/nodeevents" node src/main.js

if command -v javac >/dev/null; then
  J="$SRC/jnpe"
  mkdir -p "$J/src/com/acme/users"
  cat >"$J/src/com/acme/users/User.java" <<'JAVA'
package com.acme.users;

public final class User {
    private final String name;
    private final String email;

    public User(String name, String email) {
        this.name = name;
        this.email = email;
    }

    public String email() {
        return email;
    }

    public String name() {
        return name;
    }
}
JAVA
  cat >"$J/src/com/acme/users/Directory.java" <<'JAVA'
package com.acme.users;

import java.util.List;
import java.util.stream.Collectors;

public final class Directory {
    static String domainOf(User u) {
        return u.email().substring(u.email().indexOf('@') + 1);
    }

    static List<String> domains(List<User> users) {
        return users.stream().map(Directory::domainOf).distinct().collect(Collectors.toList());
    }

    public static void main(String[] args) {
        List<User> users = List.of(new User("ada", "ada@example.com"), new User("bob", null));
        System.out.println(domains(users));
    }
}
JAVA
  (cd "$J" && javac -d build src/com/acme/users/*.java) >/dev/null 2>&1
  run java-helpful-npe "$J" java -cp build com.acme.users.Directory
fi

mkdir -p "$SRC/pytree/tree"
: >"$SRC/pytree/tree/__init__.py"
cat >"$SRC/pytree/tree/nodes.py" <<'PY'
class Node:
    def __init__(self, name, parent=None):
        self.name = name
        self.parent = parent

    def depth(self):
        # a node whose parent is itself never reaches the root
        return 0 if self.parent is None else 1 + self.parent.depth()
PY
cat >"$SRC/pytree/main.py" <<'PY'
from tree.nodes import Node

root = Node("root")
loop = Node("loop", root)
loop.parent = loop
print(loop.depth())
PY
run python-recursionerror "$SRC/pytree" python3 main.py

mkdir -p "$SRC/cmetrics/src"
cat >"$SRC/cmetrics/src/metrics.h" <<'C'
#pragma once
double mean(const double *xs, int n);
double stddev(const double *xs, int n);
C
cat >"$SRC/cmetrics/src/metrics.c" <<'C'
#include "metrics.h"

double mean(const double *xs, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += xs[i];
  return n ? s / n : 0;
}
C
cat >"$SRC/cmetrics/src/report.c" <<'C'
#include <math.h>
#include <stdio.h>

#include "metrics.h"

int main(void) {
  double xs[] = {2, 4, 4, 4, 5, 5, 7, 9};
  printf("mean %.2f stddev %.2f\n", mean(xs, 8), stddev(xs, 8));
  return 0;
}
C
cat >"$SRC/cmetrics/Makefile" <<'MK'
CFLAGS := -g -O1 -Wall
OBJS := build/metrics.o build/report.o
report: $(OBJS)
	cc $(CFLAGS) -o $@ $^ -lm
build/%.o: src/%.c | build
	cc $(CFLAGS) -c $< -o $@
build:
	mkdir -p build
MK
run make-link-error "$SRC/cmetrics" make

mkdir -p "$SRC/tsmany/src/models" "$SRC/tsmany/src/services"
cat >"$SRC/tsmany/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "target": "ES2022", "module": "commonjs", "noEmit": true }, "include": ["src"] }
JSON
cat >"$SRC/tsmany/src/models/order.ts" <<'TS'
export type Status = 'open' | 'paid' | 'shipped';

export interface Order {
  id: string;
  status: Status;
  totalCents: number;
  placedAt: Date;
}
TS
cat >"$SRC/tsmany/src/services/orders.ts" <<'TS'
import { Order, Status } from '../models/order';

export function markPaid(order: Order): Order {
  return { ...order, status: 'payed' };
}

export function totals(orders: Order[]): number {
  return orders.reduce((sum, o) => sum + o.total, 0);
}

export function byStatus(orders: Order[], status: Status) {
  return orders.filter((o) => o.status === status).map((o) => o.id.toUpperCase);
}

export function age(order: Order): number {
  return Date.now() - order.placedAt;
}

export function find(orders: Order[], id: string): Order {
  return orders.find((o) => o.id === id);
}
TS
run tsc-many-errors "$SRC/tsmany" "$ROOT/node_modules/.bin/tsc" -p . --pretty false
