import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { xxhash3 } from 'hash-wasm';
import { analyzeText, countTokensSafe, formatLocation, LEDGER_FILE, MAX_DIAGRAM_LINES, offloadLog } from '../../../src/core/offload';
import { EXPECTED, fixture, LONG_LOGS } from './fixtures';
import { listFiles, tempRefsProject } from '../../helpers/files';

const project = () => tempRefsProject('k0-offload-');


async function mermaidVerdict(text: string): Promise<'ok' | string> {
  const mermaid = (await import('mermaid')).default;
  try {
    await mermaid.parse(text);
    return 'ok';
  } catch (err) {
    const msg = (err as Error).message;
    // In Node there is no DOM: mermaid parses the diagram, then fails in its DOMPurify step. A syntax error
    // is reported before that as "Parse error …", which is what this check is about.
    return /DOMPurify/.test(msg) ? 'ok' : msg;
  }
}

for (const ex of EXPECTED) {
  test(`analysis of real log ${ex.file}: ${ex.runtime} / ${ex.code} / ${ex.root ?? 'no user frame'}`, () => {
    const a = analyzeText(fixture(ex.file));
    assert.equal(a.runtime, ex.runtime);
    assert.equal(a.primary?.code, ex.code);
    if (ex.root) assert.ok(formatLocation(a.primary?.location).includes(ex.root), `root ${formatLocation(a.primary?.location)} should contain ${ex.root}`);
    else assert.equal(a.primary?.location, undefined, 'only node:internal frames: no user root');
  });
}

test('library frames are skipped: python KeyError raised inside string.py roots in the user file', () => {
  const a = analyzeText(fixture('python-keyerror.log'));
  assert.ok(!a.primary?.location?.file.includes('/lib/python3'));
  const n = analyzeText(fixture('node-typeerror-undefined.log'));
  assert.ok(!n.primary?.location?.file.includes('node_modules'));
});

test('chained python exceptions: the final exception is reported, the chain lists it first with where each link surfaced', () => {
  const a = analyzeText(fixture('python-chained-exception.log'));
  assert.equal(a.primary?.code, 'FileNotFoundError');
  assert.deepEqual(
    a.primary?.chain?.map((l) => `${l.code} @ ${formatLocation(l.location).replace(/^.*pyshop\//, '')}`),
    ['FileNotFoundError @ chained_main.py:14', 'CheckoutError @ shop/checkout.py:19', 'KeyError @ shop/pricing.py:13'],
  );
});

test('phases and counts', () => {
  const py = analyzeText(fixture('long-pytest-one-failure.log'));
  assert.deepEqual(py.tests, { failed: 1, passed: 1199 });
  assert.deepEqual(py.phases, ['test']);
  const c = analyzeText(fixture('long-c-build-buried-error.log'));
  assert.deepEqual(c.phases, ['compile']);
  assert.equal(c.warningCount, 12);
  // go test prints no totals: each `--- FAIL:` / `--- PASS:` verdict counts (parents and subtests alike).
  assert.deepEqual(analyzeText(fixture('go-test-v-subtests.log')).tests, { failed: 2, passed: 2 });
  const rust = analyzeText(fixture('rust-refcell-borrowmut-panic.log'));
  assert.deepEqual(rust.phases, ['compile', 'run']);
});

for (const name of LONG_LOGS) {
  test(`offload of ${name} (1,000+ lines): ≥ 97% reduction, keeps the primary code and root file:line`, async () => {
    const p = project();
    const raw = fixture(name);
    const r = await offloadLog(p, { text: raw, taskName: 'build', threshold: 30 });
    assert.equal(r.passthrough, false);
    assert.ok(r.lines >= 1000);
    assert.ok(r.reduction >= 0.97, `reduction ${r.reduction}`);
    assert.equal(r.tokensBefore, countTokensSafe(raw));
    const ex = EXPECTED.find((e) => e.file === name)!;
    assert.ok(r.text.includes(ex.code));
    assert.ok(r.text.includes(ex.root!));
    assert.match(r.text, new RegExp(`✓ Log offloaded \\(${r.lines} lines, \\d+\\.\\d% token reduction\\)`));
    assert.match(r.text, /Reference ID: node_[0-9a-f]{8}/);
    assert.match(r.text, /inspect_log_node/);
    assert.ok(r.mermaid!.split('\n').length <= MAX_DIAGRAM_LINES);
    assert.equal(await mermaidVerdict(r.mermaid!), 'ok');
    assert.deepEqual(readFileSync(join(p.projectRoot, r.rawFile!)), Buffer.from(raw, 'utf8'));
    assert.equal(r.rawFile, `.k0maru/refs/build_${r.nodeId}.log`);
    // node id = node_ + the first 8 hex digits of xxh3-64 over the raw bytes, computed independently here.
    assert.equal(r.nodeId, `node_${(await xxhash3(Buffer.from(raw, 'utf8'))).slice(0, 8)}`);
  });
}

test('every fixture gives a valid diagram of at most 15 lines', async () => {
  const p = project();
  for (const ex of EXPECTED) {
    const r = await offloadLog(p, { text: fixture(ex.file), threshold: 0 });
    const lines = r.mermaid!.split('\n');
    assert.ok(lines.length <= MAX_DIAGRAM_LINES, ex.file);
    assert.equal(lines[0], 'stateDiagram-v2');
    assert.equal(await mermaidVerdict(r.mermaid!), 'ok', ex.file);
  }
});

test('the mermaid check itself rejects a broken diagram', async () => {
  assert.notEqual(await mermaidVerdict('stateDiagram-v2\n    A -- > ;; {'), 'ok');
});

test('logs at or under the threshold pass through unchanged and write nothing', async () => {
  const p = project();
  const text = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const r = await offloadLog(p, { text, threshold: 50 });
  assert.equal(r.passthrough, true);
  assert.equal(r.text, text);
  assert.equal(existsSync(p.refsDir), false);
  const over = await offloadLog(p, { text: text + 'one more\n', threshold: 50 });
  assert.equal(over.passthrough, false);
  assert.equal(over.lines, 51);
});

test('a log just over the threshold whose summary would cost more tokens comes back whole; distill can still ask for a node', async () => {
  // A real 31-line mocha run: 144 tokens, where its diagram + summary costs ~180. An offload must not grow the context.
  const p = project();
  const text = fixture('mocha-spec-reporter.log');
  const r = await offloadLog(p, { text, threshold: 30 });
  assert.ok(r.lines > 30, `the fixture is over the threshold (${r.lines} lines)`);
  assert.equal(r.passthrough, true, `the summary was kept although it is not smaller (${r.tokensAfter} >= ${r.tokensBefore} tokens)`);
  assert.equal(r.text, text);
  assert.equal(r.nodeId, undefined);
  assert.deepEqual(existsSync(p.refsDir) ? readdirSync(p.refsDir) : [], [], 'nothing stored, no ledger line, no temp file');
  const kept = await offloadLog(p, { text, threshold: 30, keepNode: true });
  assert.equal(kept.passthrough, false);
  assert.match(kept.nodeId ?? '', /^node_[0-9a-f]{8}$/);
  assert.ok(kept.tokensAfter >= kept.tokensBefore, 'the case really is one where the summary is not smaller');
});

test('the same log twice is stored once; the ledger records both offloads', async () => {
  const p = project();
  const raw = fixture('go-deadlock.log').repeat(10);
  const a = await offloadLog(p, { text: raw, taskName: 'first', threshold: 30 });
  const b = await offloadLog(p, { stream: Readable.from([Buffer.from(raw)]), taskName: 'second', threshold: 30 });
  assert.equal(a.nodeId, b.nodeId);
  assert.equal(a.deduplicated, false);
  assert.equal(b.deduplicated, true);
  const logs = readdirSync(p.refsDir).filter((n) => n.endsWith('.log'));
  assert.deepEqual(logs, [`first_${a.nodeId}.log`]);
  const ledger = readFileSync(join(p.refsDir, LEDGER_FILE), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(ledger.length, 2);
  assert.equal(ledger[0].node_id, a.nodeId);
  assert.equal(ledger[0].tokens_before, a.tokensBefore);
  assert.equal(ledger[1].deduplicated, true);
});

test('stream input split at awkward byte boundaries gives the same node and analysis as text input', async () => {
  const p = project();
  const raw = fixture('rust-e0382-use-after-move.log') + '✓ déjà vu ✓\n'.repeat(40);
  const buf = Buffer.from(raw, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < buf.length; i += 7) chunks.push(buf.subarray(i, i + 7)); // splits multi-byte characters
  const s = await offloadLog(p, { stream: Readable.from(chunks), threshold: 30 });
  const t = await offloadLog(p, { text: raw, threshold: 30 });
  assert.equal(s.nodeId, t.nodeId);
  assert.equal(s.lines, t.lines);
  assert.equal(s.tokensBefore, t.tokensBefore);
  assert.equal(s.analysis.primary?.code, 'E0382');
});

test('ANSI colours are stripped for analysis and kept in the raw file', async () => {
  const p = project();
  const raw = fixture('rust-e0382-use-after-move.log');
  assert.ok(raw.includes('\x1b['));
  const r = await offloadLog(p, { text: raw, threshold: 10 });
  assert.equal(r.analysis.primary?.code, 'E0382');
  assert.equal(formatLocation(r.analysis.primary?.location), 'src/worker.rs:13:17');
  assert.ok(!r.text.includes('\x1b['));
  assert.ok(readFileSync(join(p.projectRoot, r.rawFile!), 'utf8').includes('\x1b[1m\x1b[91merror[E0382]'));
});

test('bad input: binary junk, 1 MB lines and empty logs are handled and stay inside .k0maru/refs', async () => {
  const p = project();
  const junk = randomBytes(300_000);
  const j = await offloadLog(p, { stream: Readable.from([junk]), threshold: 30 });
  assert.ok(j.lines > 30);
  assert.deepEqual(readFileSync(join(p.projectRoot, j.rawFile!)), junk);

  const longLine = 'x'.repeat(1 << 20);
  const text = `${longLine}\nerror[E0502]: cannot borrow \`v\` as mutable\n  --> src/lib.rs:3:5\n${longLine}\n` + 'noise\n'.repeat(40);
  const l = await offloadLog(p, { text, threshold: 30 });
  assert.equal(l.lines, 44);
  assert.equal(l.analysis.primary?.code, 'E0502');
  assert.equal(formatLocation(l.analysis.primary?.location), 'src/lib.rs:3:5');
  assert.ok(l.text.length < 2000);

  const e = await offloadLog(p, { text: '' });
  assert.equal(e.passthrough, true);
  assert.equal(e.lines, 0);
  assert.equal(e.text, '');
  await assert.rejects(offloadLog(p, { text: 'x', threshold: -1 }), /threshold/);
  await assert.rejects(offloadLog(p, {}), /exactly one/);

  const files = listFiles(p.projectRoot);
  assert.ok(files.every((f) => f.startsWith('.k0maru/refs/')), files.join(', '));
  assert.ok(!files.some((f) => f.endsWith('.tmp')), 'no temp file left behind');
  rmSync(p.projectRoot, { recursive: true, force: true });
});

test('task names cannot escape the refs folder', async () => {
  const p = project();
  const r = await offloadLog(p, { text: 'a\n'.repeat(60), taskName: '../../../etc/evil name', threshold: 30 });
  assert.match(r.rawFile!, /^\.k0maru\/refs\/etc-evil-name_node_[0-9a-f]{8}\.log$/);
});

test('plain `Error:` with Node frames is JavaScript; the same shape from a Python logger is not', () => {
  const node = analyzeText('Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n    at connect (/srv/app/src/db.ts:12:9)\n');
  assert.equal(node.primary?.code, 'Error');
  assert.equal(node.runtime, 'typescript');
  assert.equal(formatLocation(node.primary?.location), '/srv/app/src/db.ts:12:9');
  const py = analyzeText('INFO:worker:starting\n  File "/srv/app/worker.py", line 3\nValueError: bad config\n');
  assert.notEqual(py.runtime, 'javascript');
});

test('a C compile error in a non-C file does not claim the C/C++ runtime', () => {
  const a = analyzeText('Sources/App/main.swift:3:5: error: cannot find x in scope\n');
  assert.equal(a.primary?.code, 'cc-error');
  assert.equal(a.runtime, 'unknown');
});

test('CRLF line endings and \\r progress redraws analyse like plain lines', () => {
  const crlf = fixture('rust-e0502-borrow-conflict.log').replace(/\n/g, '\r\n');
  const a = analyzeText(crlf);
  assert.equal(a.primary?.code, 'E0502');
  assert.equal(formatLocation(a.primary?.location), 'src/stock.rs:9:9');
  const progress = 'Downloading 10%\rDownloading 55%\rerror[E0382]: borrow of moved value: `x`\n  --> src/a.rs:2:3\n';
  const b = analyzeText(progress);
  assert.equal(b.primary?.code, 'E0382');
  assert.equal(formatLocation(b.primary?.location), 'src/a.rs:2:3');
});
