import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { analyzeText, LogAnalyzer, MAX_DIAGRAM_LINES } from '../../../src/core/offload';

/**
 * Issue 15 "bad input" for offload: one 5 MB line, ANSI colours with `\r` progress bars, binary garbage, and a
 * 64 MB log — through the built CLI, each a correct result (or a coded error), never a crash, with the child's
 * peak RSS bounded whatever the input size.
 */
const PRELOAD = join(__dirname, 'rssPreload.cjs');
/** Node itself plus the bundle and the tokenizer take ~100 MB; the log's size must not add to it. */
const RSS_LIMIT_KIB = 260 * 1024;

function workspace(): { root: string; offload(file: string): { code: number; out: string; err: string; rssKiB: number }; done(): void } {
  ensureBuilt();
  const root = mkdtempSync(join(tmpdir(), 'k0-bad-input-'));
  execFileSync('git', ['init', '-q'], { cwd: root });
  const env = { PATH: process.env.PATH ?? '', HOME: root };
  assert.equal(spawnSync(process.execPath, [DIST_CLI, 'init'], { cwd: root, env }).status, 0);
  const offload = (file: string) => {
    const rssFile = join(root, 'rss.txt');
    const r = spawnSync(process.execPath, ['-r', PRELOAD, DIST_CLI, 'offload', file], { cwd: root, env: { ...env, K0_RSS_OUT: rssFile }, encoding: 'utf8', maxBuffer: 64 << 20 });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr, rssKiB: Number(readFileSync(rssFile, 'utf8')) };
  };
  return { root, offload, done: () => rmSync(root, { recursive: true, force: true }) };
}

const report = (what: string, rssKiB: number) => console.log(`# peak RSS ${what}: ${(rssKiB / 1024).toFixed(1)} MiB`);

test('one 5 MB line: offloaded (not passed through whole), error in its head found, memory bounded', () => {
  const w = workspace();
  try {
    const file = join(w.root, 'one-line.log');
    writeFileSync(file, `TypeError: Cannot read properties of undefined (reading 'id') ${'x'.repeat(5 * 1024 * 1024)}`);
    const r = w.offload(file);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.length < 4000, `summary is ${r.out.length} chars`);
    assert.match(r.out, /✓ Log offloaded \(1 lines, 9\d\.\d% token reduction\)/);
    assert.match(r.out, /Primary: \[TypeError\]/);
    assert.ok(r.rssKiB < RSS_LIMIT_KIB, `${r.rssKiB} KiB`);
    report('5 MB single line', r.rssKiB);
  } finally {
    w.done();
  }
});

test('ANSI colours and \\r progress bars: the error after the bars is the primary, root file:line kept', () => {
  const w = workspace();
  try {
    const file = join(w.root, 'progress.log');
    const bars: string[] = [];
    for (let i = 0; i < 400; i++) {
      let line = '';
      for (let p = 0; p <= 100; p += 5) line += `\r\x1b[32m[${'='.repeat(p / 5).padEnd(20)}]\x1b[0m ${p}% crate_${i}`;
      bars.push(`\x1b[1m\x1b[32m   Compiling\x1b[0m crate_${i} v0.1.0${line}`);
    }
    const error = ['\x1b[0m\x1b[1m\x1b[38;5;9merror[E0308]\x1b[0m\x1b[1m: mismatched types\x1b[0m', '\x1b[0m \x1b[0m\x1b[0m\x1b[1m\x1b[38;5;12m--> \x1b[0m\x1b[0msrc/main.rs:5:9\x1b[0m'];
    writeFileSync(file, [...bars, ...error, '\x1b[1m\x1b[31merror\x1b[0m: could not compile `app`', ''].join('\r\n'));
    const r = w.offload(file);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Primary: \[E0308\] mismatched types at src\/main\.rs:5:9/);
    assert.doesNotMatch(r.out, /\x1b/);
    const diagram = r.out.slice(r.out.indexOf('stateDiagram-v2'), r.out.indexOf('```', 10));
    assert.ok(diagram.trim().split('\n').length <= MAX_DIAGRAM_LINES);
    report('ANSI + progress bars', r.rssKiB);
  } finally {
    w.done();
  }
});

test('binary garbage: a correct "no error found" summary, no crash, no control bytes in the output', () => {
  const w = workspace();
  try {
    const file = join(w.root, 'garbage.bin');
    // Deterministic pseudo-random bytes (an LCG), so a failure reproduces.
    const buf = Buffer.alloc(4 * 1024 * 1024);
    let x = 12345;
    for (let i = 0; i < buf.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      buf[i] = x >>> 24;
    }
    writeFileSync(file, buf);
    const r = w.offload(file);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Reference ID: node_[0-9a-f]{8}/);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(r.out.replace(/\n/g, ''), /[\x00-\x08\x0b-\x1f\x7f]/);
    assert.ok(r.rssKiB < RSS_LIMIT_KIB, `${r.rssKiB} KiB`);
    report('4 MB binary garbage', r.rssKiB);
  } finally {
    w.done();
  }
});

test('a 64 MB log: streamed, the buried error found, peak RSS independent of the size', () => {
  const w = workspace();
  try {
    const file = join(w.root, 'huge.log');
    const fd = openSync(file, 'w');
    const block = Array.from({ length: 1000 }, (_, i) => `[INFO] step ${i}: compiled module_${i}.c in 3 ms, cache hit ratio 0.97`).join('\n') + '\n';
    let written = 0;
    let n = 0;
    while (written < 64 * 1024 * 1024) {
      if (n++ === 500) written += writeSync(fd, 'src/engine/core.c:42:7: error: ‘totl’ undeclared (first use in this function)\n');
      written += writeSync(fd, block);
    }
    closeSync(fd);
    const r = w.offload(file);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Primary: \[undeclared-identifier\] .* at src\/engine\/core\.c:42:7/);
    assert.ok(r.rssKiB < RSS_LIMIT_KIB, `${r.rssKiB} KiB`);
    report('64 MB log', r.rssKiB);
  } finally {
    w.done();
  }
});

test('analyzeText on garbage and on a 5 MB line returns an analysis, never throws', () => {
  const junk = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 256)).toString('latin1');
  assert.ok(analyzeText(junk).lines > 0);
  assert.equal(analyzeText(`panic: ${'y'.repeat(5 << 20)}`).primary?.code, 'panic');
});

test('a run with 60,000 failing tests: every failure counted, the state the analyzer keeps stays bounded', () => {
  // A real pytest entry (from a captured log) repeated under 60,000 test names, streamed line by line.
  const real = readFileSync(join(__dirname, 'captured', 'pytest-class-method.log'), 'utf8').split('\n');
  const entry = real.slice(real.findIndex((l) => /^_{3,} /.test(l)), real.findIndex((l) => /short test summary/.test(l)));
  const a = new LogAnalyzer();
  a.push('=================================== FAILURES ===================================');
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 60_000; i++) for (const l of entry) a.push(l.replace('TestCart.test_total', `TestCart.test_total_${i}`));
  const r = a.finish();
  assert.equal(r.errorCount, 60_000);
  assert.equal(r.errors.length, 50);
  assert.equal(r.primary?.test, 'TestCart.test_total_0');
  assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024, `${process.memoryUsage().heapUsed - before} bytes`);
});
