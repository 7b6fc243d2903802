import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '../../../src/core/offload';

export const LOG_DIR = join(__dirname, '..', '..', 'fixtures', 'logs');

export function fixture(name: string): string {
  return readFileSync(join(LOG_DIR, name), 'utf8');
}

/** What each real captured log must yield: runtime, primary code and the root file:line (suffix). */
export const EXPECTED: { file: string; runtime: Runtime; code: string; root?: string; family: string }[] = [
  { file: 'rust-e0382-use-after-move.log', runtime: 'rust', code: 'E0382', root: 'src/worker.rs:13', family: 'rust-use-after-move' },
  { file: 'rust-e0502-borrow-conflict.log', runtime: 'rust', code: 'E0502', root: 'src/stock.rs:9', family: 'rust-mutable-borrow-conflict' },
  { file: 'rust-refcell-borrowmut-panic.log', runtime: 'rust', code: 'panic', root: 'src/cache.rs:21', family: 'rust-refcell-borrow-mut-error' },
  { file: 'python-keyerror.log', runtime: 'python', code: 'KeyError', root: 'pyshop/shop/pricing.py:9', family: 'python-key-error' },
  // The exception the program died with is reported; the KeyError that started the chain still picks the family.
  { file: 'python-chained-exception.log', runtime: 'python', code: 'FileNotFoundError', root: 'pyshop/chained_main.py:14', family: 'python-key-error' },
  { file: 'python-pytest-failure.log', runtime: 'python', code: 'AssertionError', root: 'tests/test_pricing.py:15', family: 'test-assertion-failure' },
  { file: 'node-typeerror-undefined.log', runtime: 'javascript', code: 'TypeError', root: 'nodeapp/src/users.js:4', family: 'js-property-of-undefined' },
  { file: 'node-unhandled-rejection.log', runtime: 'javascript', code: 'ERR_UNHANDLED_REJECTION', family: 'js-unhandled-rejection' },
  { file: 'node-async-throw.log', runtime: 'javascript', code: 'RangeError', root: 'nodeapp/src/sync.mjs:4', family: 'js-uncaught-exception' },
  { file: 'ts-tsc-errors.log', runtime: 'typescript', code: 'TS2345', root: 'src/service.ts:4', family: 'ts-type-mismatch' },
  { file: 'cpp-asan-heap-use-after-free.log', runtime: 'c-cpp', code: 'heap-use-after-free', root: 'src/queue.cpp:15', family: 'heap-use-after-free' },
  { file: 'go-deadlock.log', runtime: 'go', code: 'fatal error', root: 'gopipe/cmd/deadlock/main.go:7', family: 'go-deadlock' },
  { file: 'go-nil-map-panic.log', runtime: 'go', code: 'panic', root: 'gopipe/registry/registry.go:8', family: 'go-nil-map' },
  { file: 'rust-cargo-test-failure.log', runtime: 'rust', code: 'assertion-failed', root: 'src/lib.rs:17', family: 'test-assertion-failure' },
  { file: 'go-test-failure.log', runtime: 'go', code: 'test-failure', root: 'quota_test.go:7', family: 'test-assertion-failure' },
  { file: 'node-test-failure.log', runtime: 'javascript', code: 'AssertionError', root: 'nodeapp/test/slug.test.js:10', family: 'test-assertion-failure' },
  { file: 'rust-unwrap-none-panic.log', runtime: 'rust', code: 'panic', root: 'src/main.rs:4', family: 'rust-unwrap-on-none' },
  { file: 'python-module-not-found.log', runtime: 'python', code: 'ModuleNotFoundError', root: 'pyshop/shop/export.py:1', family: 'python-module-not-found' },
  { file: 'node-not-a-function.log', runtime: 'javascript', code: 'TypeError', root: 'nodeapp/src/report.js:5', family: 'js-not-a-function' },
  { file: 'ts-possibly-undefined.log', runtime: 'typescript', code: 'TS18048', root: 'src/lookup.ts:5', family: 'ts-possibly-undefined' },
  { file: 'cpp-asan-heap-buffer-overflow.log', runtime: 'c-cpp', code: 'heap-buffer-overflow', root: 'src/ring.cpp:5', family: 'buffer-overflow' },
  { file: 'cpp-type-mismatch.log', runtime: 'c-cpp', code: 'type-mismatch', root: 'src/shapes.cpp:14', family: 'cpp-type-mismatch' },
  { file: 'go-nil-pointer.log', runtime: 'go', code: 'panic', root: 'gopipe/store/store.go:14', family: 'go-nil-pointer' },
  { file: 'long-c-build-buried-error.log', runtime: 'c-cpp', code: 'undeclared-identifier', root: 'src/mod_0551.c:7', family: 'c-undeclared-identifier' },
  { file: 'long-pytest-one-failure.log', runtime: 'python', code: 'AssertionError', root: 'tests/test_rates.py:9', family: 'test-assertion-failure' },
];

export const LONG_LOGS = ['long-c-build-buried-error.log', 'long-pytest-one-failure.log'];
