import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLibraryPath } from '../../../src/core/offload';
import { isLibrarySymbol } from '../../../src/core/offload/frames';

/** The user-frame classifier: toolchain, runtime and dependency frames are never a root; user folders that share their names are. */
test('library frames: standard libraries, dependencies and toolchains of every runtime', () => {
  for (const p of [
    '/usr/local/go/src/runtime/panic.go',
    '/usr/lib/go-1.19/src/testing/testing.go',
    '/root/sdk/go1.22.0/src/sync/mutex.go',
    '/opt/hostedtoolcache/go/1.22.1/x64/src/reflect/value.go',
    '/root/go/pkg/mod/github.com/stretchr/testify@v1.8.4/assert/assertions.go',
    'node:internal/test_runner/test',
    'internal/modules/cjs/loader.js',
    '/app/node_modules/jest-circus/build/utils.js',
    '<anonymous>',
    '/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py',
    '/venv/lib/python3.12/site-packages/_pytest/runner.py',
    'C:\\Users\\me\\AppData\\Local\\Programs\\Python\\Python311\\Lib\\json\\decoder.py',
    '<frozen importlib._bootstrap>',
    '/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/panicking.rs',
    '/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/serde-1.0.0/src/de.rs',
    '/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits/stl_algo.h',
    '/usr/include/c++/12/bits/stl_vector.h',
    '../sysdeps/nptl/libc_start_call_main.h',
    'csu/../csu/libc-start.c',
    '../../../../src/libsanitizer/asan/asan_malloc_linux.cpp',
  ]) assert.equal(isLibraryPath(p), true, p);
});

test('user frames: project folders named like toolchain ones stay user code', () => {
  for (const p of [
    '/go/src/app/main.go', // a GOPATH checkout in the golang Docker image
    'internal/store/store.go', // a Go internal/ package
    '/home/u/proj/src/runtime/engine.ts', // a JS project's src/runtime/
    'src/lib.rs',
    '/tmp/k0maru-fixture-src/pyshop/shop/pricing.py',
    'tests/test_tax.py',
    'file:///srv/app/src/cart.js'.slice('file://'.length),
    'com/acme/App.java',
  ]) assert.equal(isLibraryPath(p), false, p);
});

test('JVM and .NET frames are judged by namespace', () => {
  for (const s of ['java.base/java.util.stream.ReferencePipeline$3$1.accept', 'org.junit.jupiter.api.AssertionFailureBuilder.build', 'jdk.internal.reflect.DirectMethodHandleAccessor.invoke', 'System.Linq.Enumerable.First', 'Xunit.Assert.Equal']) assert.equal(isLibrarySymbol(s), true, s);
  for (const s of ['com.acme.billing.BillingRun.totalOf', 'app//com.acme.App.main', 'Billing.Tests.CalcTests.Adds']) assert.equal(isLibrarySymbol(s), false, s);
});
