// One very long note must not break hybrid recall for the vault. The cause was the tokenizer: with no
// pre-tokenizer the whole passage is one pre-token, and @huggingface/tokenizers gathers its pieces with
// `push(...pieces)` — ~120,000 tokens overflow the call stack. The tokenizer now reads only what the model can see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { loadTokenizer, readablePrefix } from '../../../src/core/embed/tokenizer';
import { EmbedWorker } from '../../../src/core/embed/embedWorker';
import { createVectorChannel } from '../../../src/core/embed/channel';
import { IndexDb } from '../../../src/core/index/db';
import { IncrementalScanner } from '../../../src/core/scan/scanner';
import { recall } from '../../../src/core/search/recall';
import { DIST_CLI, ensureBuilt } from '../../helpers/build';
import { tempVault } from '../../helpers/tempVault';
import { ensureBundledModel, ORT_WASM_DIR } from './helpers';

const LONG_NO_SPACES = 'x'.repeat(600_000);
const LONG_WORDS = 'lorem ipsum dolor sit amet '.repeat(24_000); // ~650,000 characters, 120,000 words

test('the tokenizer reads a 600,000-character text without overflowing and gives the ids the model would see', () => {
  const dir = ensureBundledModel();
  const tok = loadTokenizer(join(dir, 'tokenizer.json'), 128);
  const raw = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), {});
  assert.throws(() => raw.encode(LONG_NO_SPACES), RangeError, 'the library itself overflows: this is the bug being guarded against');

  for (const text of [LONG_NO_SPACES, LONG_WORDS]) {
    const r = tok.encode(text);
    assert.equal(r.ids.length, 128);
    assert.equal(r.cut, true);
    assert.ok(r.fullLength > 128);
  }
  // Characters outside the vocabulary fuse into one unknown token: short ids, but read within bounds all the same.
  assert.equal(tok.encode('😀'.repeat(100_000)).cut, true);
  // Texts within the readable length tokenize exactly as before (their stored vectors stay valid).
  for (const text of ['Acquire a Redis mutex before charging the card.', 'é'.repeat(300), 'word '.repeat(700)]) {
    const mine = tok.encode(text);
    assert.equal(mine.cut, false);
    assert.deepEqual(mine.ids, raw.encode(text).ids.slice(0, 128));
  }
  // The first 128 tokens of a long text are those of the whole text (the cut is far past what the model reads).
  const prose = 'We retry SQLITE_BUSY with back-off and jitter, then give up with INDEX_BUSY. '.repeat(2_000);
  assert.deepEqual(tok.encode(prose).ids, raw.encode(prose.slice(0, 20_000)).ids.slice(0, 128));
  // A cut never splits a surrogate pair.
  const cutAt = readablePrefix('a'.repeat(9) + '😀'.repeat(10), 10);
  assert.ok(!/[\ud800-\udbff]$/.test(cutAt));
});

test('a vault with a 600,000-character note: every passage gets a vector, the long one is reported, hybrid recall answers', { timeout: 300_000 }, async () => {
  const dir = ensureBundledModel();
  const tmp = mkdtempSync(join(tmpdir(), 'k0-long-'));
  const notes = join(tmp, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'payments.md'), '# Charging cards\n\nAcquire a Redis mutex before charging so the card is not charged twice.\n');
  writeFileSync(join(notes, 'blob.md'), `# A pasted blob\n\n${LONG_NO_SPACES}\n`);
  const idx = IndexDb.open(join(tmp, 'index.db'));
  const worker = new EmbedWorker({ modelDir: dir, threads: 1, wasmDir: ORT_WASM_DIR });
  try {
    await new IncrementalScanner(idx, notes).scan();
    const cfg = await worker.start();
    const channel = createVectorChannel({ index: idx, embedder: worker, modelId: cfg.id, dimension: cfg.dimension });
    await channel.catchUp();
    assert.equal(channel.pending(), 0);
    assert.ok(channel.oversized >= 1, 'the long passage is reported');
    assert.equal(channel.lastCatchUp!.skipped, 0);
    const project = { index: idx, paths: { notesRoot: notes } } as unknown as Parameters<typeof recall>[0];
    // Without the relevance floor (floor.ts): USE-lite puts this paraphrase of a one-line note below it.
    const r = await recall(project, 'never bill a customer two times', { mode: 'hybrid', vectors: { ...channel, floor: undefined } });
    assert.equal(r.hits[0].path, 'payments.md');
  } finally {
    await worker.dispose();
    idx.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the built CLI answers hybrid recall on a vault holding a 600,000-character note', { timeout: 300_000 }, () => {
  ensureBuilt();
  const v = tempVault({ 'payments.md': '# Charging cards\n\nAcquire a Redis mutex before charging so the card is not charged twice.\n', 'blob.md': `# Blob\n\n${LONG_NO_SPACES}\n`, 'words.md': `# Words\n\n${LONG_WORDS.slice(0, 60_000)}\n` });
  try {
    const r = spawnSync(process.execPath, [DIST_CLI, 'recall', 'redis mutex charging', '--mode', 'hybrid', '--json', '--vault', v.root], { encoding: 'utf8', env: { ...process.env, HOME: v.root } });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.hits[0].path, 'payments.md');
    assert.doesNotMatch(r.stdout + r.stderr, /call stack|INTERNAL/);
  } finally {
    v.cleanup();
  }
});
