import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { openProject, type Project } from '../../../src/core/project';
import { ParseWorker } from '../../../src/core/scan/parsePool';
import { sliceStarts } from '../../../src/core/scan/outcomeStream';
import { PARSE_WORKER_MIN_FILES } from '../../../src/core/scan/scanner';
import type { ScanOptions, ScanReport } from '../../../src/core/scan/scanner';
import { tempVault, type TempVault } from '../../helpers/tempVault';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { generateVault } from '../../../bench/lib/vaultGen';
import { notes } from './parseCorpus';
import { rowsDigest } from './parseDigest';

// Issue 17: a large scan parses in a worker thread while the scanning thread writes SQLite. What it writes must be
// exactly what parsing on the scanning thread writes, for awkward notes and for files that are not notes at all,
// and a worker that dies mid-scan must cost nothing but speed.

/** The parse corpus (hostile Markdown and YAML, the ADR corpus, a generated vault) plus files a scan must refuse or flag. */
function corpusVault(): TempVault {
  const v = tempVault();
  for (const { rel, raw } of notes()) v.write(rel, raw);
  v.write('odd/binary.md', Buffer.from([0x23, 0x20, 0x41, 0x00, 0x42, 0x0a]));
  v.write('odd/latin1.md', Buffer.from('# Caf\xe9 cr\xe8me\n', 'latin1'));
  v.write('odd/huge.md', `# Huge\n${'word '.repeat(300_000)}\n`);
  execFileSync('mkfifo', [join(v.notes, 'odd', 'fifo.md')]);
  return v;
}

/** Everything the index holds (rows and FTS rowids by content), and the report without its timings. */
function snapshot(p: Project, r: ScanReport) {
  const rows = rowsDigest({
    documents: p.index.all('SELECT * FROM documents ORDER BY id'),
    chunks: p.index.all('SELECT * FROM chunks ORDER BY id'),
    links: p.index.all('SELECT * FROM links ORDER BY rowid'),
    // A term that every chunk with text has: its matches name every indexed rowid.
    fts: p.index.all("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'the OR a OR word0 OR x' ORDER BY rowid"),
  });
  const { durationMs: _d, staleness: _s, parseWorker, ...report } = r;
  return { rows, report, parseWorker };
}

async function scanFresh(v: TempVault, opts: ScanOptions, log?: (level: string, msg: string) => void) {
  const p = openProject({ vault: v.root, log });
  try {
    const r = await p.scan({ maxFileBytes: 1_000_000, ...opts });
    return snapshot(p, r);
  } finally {
    p.close();
  }
}

const removeIndex = (v: TempVault) => execFileSync('rm', ['-f', join(v.root, '.k0maru', 'index.db'), join(v.root, '.k0maru', 'index.db-journal')]);

/** A cold index of `v` parsed on the scanning thread, then one through `pool`, and the warnings the second logged. */
async function bothWays(v: TempVault, pool: ParseWorker) {
  const here = await scanFresh(v, { parseWorker: false });
  removeIndex(v);
  const warnings: string[] = [];
  const there = await scanFresh(v, { parseWorker: true, parseWorkerPool: pool }, (level, msg) => level === 'warn' && warnings.push(msg));
  return { here, there, warnings };
}

test('a large scan parsed in the worker writes exactly what parsing on the scanning thread writes', async () => {
  const v = corpusVault();
  const pool = new ParseWorker();
  try {
    const here = await scanFresh(v, { parseWorker: false });
    assert.ok(here.report.added > 600, `the corpus was written (${here.report.added} notes)`);
    assert.equal(pool.answered, 0);
    removeIndex(v);
    const there = await scanFresh(v, { parseWorker: true, parseWorkerPool: pool });
    assert.ok(pool.answered >= sliceStarts(here.report.added).length - 1, `the worker examined the files (${pool.answered} requests)`);
    assert.deepEqual(there.parseWorker, { requests: sliceStarts(here.report.added + 2).length - 1, fellBack: false }, 'every file to read went through the worker (the added notes and the two binary ones)');
    assert.equal(here.parseWorker, undefined);
    assert.deepStrictEqual({ ...there, parseWorker: undefined }, here);
    const reasons = here.report.skipped.map((s) => `${s.path}: ${s.reason.replace(/\(.*/, '')}`).sort();
    assert.deepEqual(reasons, ['nul.md: binary content ', 'odd/binary.md: binary content ', 'odd/fifo.md: a FIFO ', 'odd/huge.md: too large '], 'the refused files, either way');
    assert.ok(here.report.warnings.some((w) => w.path === 'odd/latin1.md' && /invalid UTF-8/.test(w.message)), 'invalid UTF-8 is flagged');
    assert.ok(here.report.warnings.some((w) => /invalid frontmatter/.test(w.message)), 'invalid YAML is flagged');
  } finally {
    pool.dispose();
    v.cleanup();
  }
});

test('a worker that dies mid-scan costs speed, not a note: the scan finishes on its own thread with the same rows', async () => {
  const v = corpusVault();
  // The real worker, in a thread that exits instead of sending its second answer.
  const script = join(v.root, 'dying-worker.js');
  const tsx = require.resolve('tsx/cjs/api');
  const real = join(__dirname, '..', '..', '..', 'src', 'core', 'scan', 'parseWorker.ts');
  writeFileSync(script, `const { parentPort } = require('node:worker_threads'); let n = 0;
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (m) => (++n === 2 ? process.exit(7) : post(m));
require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(real)});\n`);
  const pool = new ParseWorker({ script });
  try {
    const { here, there, warnings } = await bothWays(v, pool);
    assert.equal(pool.answered, 1, 'the worker answered once before it died');
    assert.equal(pool.crashes, 1);
    assert.ok(warnings.some((w) => /parse worker exited with code 7; parsing the remaining notes/.test(w)), warnings.join('\n'));
    assert.deepEqual(there.parseWorker, { requests: 1, fellBack: true });
    assert.deepStrictEqual({ ...there, parseWorker: undefined }, here);
  } finally {
    pool.dispose();
    v.cleanup();
  }
});

test('a worker script that cannot start leaves the scan to the scanning thread', async () => {
  const v = corpusVault();
  const pool = new ParseWorker({ script: join(v.root, 'missing-worker.js') });
  try {
    const { here, there } = await bothWays(v, pool);
    assert.equal(pool.answered, 0);
    assert.deepEqual(there.parseWorker, { requests: 0, fellBack: true });
    assert.deepStrictEqual({ ...there, parseWorker: undefined }, here);
  } finally {
    pool.dispose();
    v.cleanup();
  }
});

test('a scan of fewer files than PARSE_WORKER_MIN_FILES never starts a worker', async () => {
  const v = tempVault();
  generateVault(v.notes, PARSE_WORKER_MIN_FILES - 1);
  const pool = new ParseWorker();
  try {
    const r = await scanFresh(v, { parseWorkerPool: pool });
    assert.equal(r.report.added, PARSE_WORKER_MIN_FILES - 1);
    assert.equal(pool.answered, 0);
    assert.equal(r.parseWorker, undefined);
  } finally {
    pool.dispose();
    v.cleanup();
  }
});

test('the bundled CLI parses a large cold index in dist/parseWorker.js and exits when done', async () => {
  ensureBuilt();
  const v = tempVault();
  const n = PARSE_WORKER_MIN_FILES + 100;
  generateVault(v.notes, n);
  try {
    const env = { ...process.env, K0MARU_PARSE_WORKER: undefined };
    const out = execFileSync(process.execPath, [DIST_CLI, 'scan', '--json', '--vault', v.root], { encoding: 'utf8', env });
    const report = JSON.parse(out) as ScanReport;
    assert.equal(report.added, n);
    // One core: no worker (nothing to overlap with); the rows are the same either way (tests above).
    assert.deepEqual(report.parseWorker, availableParallelism() > 1 ? { requests: sliceStarts(n).length - 1, fellBack: false } : undefined);
    const again = JSON.parse(execFileSync(process.execPath, [DIST_CLI, 'scan', '--json', '--vault', v.root], { encoding: 'utf8', env })) as ScanReport;
    assert.deepEqual([again.unchanged, again.added, again.parseWorker], [n, 0, undefined], 'a clean scan reads no file and starts no worker');
  } finally {
    v.cleanup();
  }
});

test('worker requests cover every job once, in order, small ones first', () => {
  for (const n of [0, 1, 24, 25, 26, 75, 76, 299, 300, 5000]) {
    const s = sliceStarts(n);
    assert.equal(s[0], 0);
    assert.equal(s[s.length - 1], n);
    for (let k = 1; k < s.length; k++) assert.ok(s[k] > s[k - 1] && s[k] - s[k - 1] <= 100, `slice ${k} of ${n}`);
  }
  assert.deepEqual(sliceStarts(300), [0, 25, 75, 175, 275, 300]);
});

/** A real parse worker that records how many files were requested of it before it had answered anything. */
class RecordingWorker extends ParseWorker {
  requested = 0;
  requestedBeforeFirstAnswer: number | undefined;
  override examine(jobs: Parameters<ParseWorker['examine']>[0]) {
    this.requested += jobs.length;
    return super.examine(jobs).then((out) => {
      this.requestedBeforeFirstAnswer ??= this.requested;
      return out;
    });
  }
}

test('a large scan keeps the worker more than a write batch ahead from the start, and bounded', async () => {
  // The scanner writes 400 outcomes per synchronous transaction and can post no request meanwhile: a worker with
  // less than that queued runs dry in every commit and the writer then waits for it (2026-12-06: 175 files were
  // requested up front, 300 kept ahead; a 5,000-note cold index waited 190 ms of ~650 for the worker).
  const v = tempVault();
  const n = PARSE_WORKER_MIN_FILES + 1000;
  generateVault(v.notes, n);
  const pool = new RecordingWorker();
  try {
    const p = openProject({ vault: v.root });
    try {
      const r = await p.scan({ parseWorker: true, parseWorkerPool: pool });
      assert.equal(r.added, n);
      assert.equal(pool.requested, n, 'every file requested once');
    } finally {
      p.close();
    }
    assert.ok(pool.requestedBeforeFirstAnswer! >= 800, `requested before the first answer: ${pool.requestedBeforeFirstAnswer} (want >= two write batches)`);
    assert.ok(pool.requestedBeforeFirstAnswer! <= 1300, `requested before the first answer: ${pool.requestedBeforeFirstAnswer} (a vault is not queued whole)`);
  } finally {
    pool.dispose();
    v.cleanup();
  }
});
