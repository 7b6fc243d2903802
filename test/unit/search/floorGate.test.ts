// The answer gate (floor.ts): a query with words no note contains is answered only with a passage close enough;
// one most of whose words no note contains has no lexical match. Real parts: a real SQLite index of a temp vault,
// the bundled ONNX model, the product's vector channel and recall().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openProject, type Project } from '../../../src/core/project';
import { EmbeddingEngine } from '../../../src/core/embed/engine';
import { createVectorChannel, type VectorChannelHandle } from '../../../src/core/embed/channel';
import { recall } from '../../../src/core/search/recall';
import { searchBm25 } from '../../../src/core/search/bm25';
import { answerGateFor, applyAnswerGate, bestNoteCoverage, CALIBRATIONS, knownShare, relevanceFloor } from '../../../src/core/search/floor';
import type { RankedDoc } from '../../../src/core/search/types';
import { tempVault, type TempVault } from '../../helpers/tempVault';
import { ensureBundledModel, ORT_WASM_DIR } from '../embed/helpers';

let v: TempVault;
let p: Project;
let engine: EmbeddingEngine;
let channel: VectorChannelHandle;

const NOTES: Record<string, string> = {
  'adr-001-pgbouncer.md': '# ADR-001 Connection pooling\nWe put PgBouncer in transaction mode in front of PostgreSQL so that the number of database connections stays bounded.\n',
  'adr-002-config.md': '# ADR-002 Configuration as one flat file\nWe change the configuration to one flat TOML file per service; nested includes are gone.\n',
  'adr-003-tls.md': '# ADR-003 Certificate rotation\nTLS certificates are issued by cert-manager and renewed automatically thirty days before they expire.\n',
};

before(async () => {
  v = tempVault(NOTES);
  p = openProject({ vault: v.root });
  await p.scan();
  engine = await EmbeddingEngine.load(ensureBundledModel(), { wasmDir: ORT_WASM_DIR });
  channel = createVectorChannel({ index: p.index, embedder: engine, modelId: engine.config.id, dimension: engine.config.dimension });
  const todo = channel.store.pendingPassages();
  const { vectors } = await engine.embed(todo.map((t) => t.text));
  channel.store.put(todo.map((t, i) => ({ hash: t.hash, vector: vectors[i] })));
  channel.store.refresh();
});
after(async () => {
  await engine.dispose();
  p.close();
  v.cleanup();
});

test('knownShare: the share of the query’s content words some note contains, probed in the real FTS index', () => {
  assert.equal(knownShare(p.index, 'pgbouncer transaction'), 1);
  assert.equal(knownShare(p.index, 'pgbouncer bicycle'), 0.5);
  assert.equal(knownShare(p.index, 'how to change a flat bicycle tyre'), 0.5, 'change, flat known; bicycle, tyre not; stopwords do not count');
  assert.equal(knownShare(p.index, 'zzqxw nonexistent'), 0);
  // Another inflection of a word the notes use is known ("renewing", "expiring": "renewed", "expire"); a word whose
  // stem occurs nowhere is not ("tyres" -> "tyre").
  assert.equal(knownShare(p.index, 'renewing expiring certificate'), 1);
  assert.equal(knownShare(p.index, 'tyres bicycles'), 0);
  assert.equal(knownShare(p.index, 'transactional'), 1, '"transactional" and "transaction" share the Porter stem "transact"');
  assert.equal(knownShare(p.index, 'pooled'), 1, '"pooled" and "pooling" share the stem "pool"');
});

test('a word is known by its stem, never by a longer word that starts with it ("boil" is not "boilerplate")', async () => {
  const other = tempVault({ 'adr-010-templates.md': '# ADR-010 Service templates\nWe generate the boilerplate of every new service; nobody copies eggs of old repos by hand.\n' });
  const q = openProject({ vault: other.root });
  try {
    await q.scan();
    assert.equal(knownShare(q.index, 'boil'), 0, 'the stem-prefix probe "boil" * matched "boilerplate"');
    assert.equal(knownShare(q.index, 'egg'), 1, '"egg" and "eggs" are one word to the index');
    assert.equal(bestNoteCoverage(q.index, 'boil egg', searchBm25(q.index, 'boil egg', 10).map((h) => h.docId)), 0.5);
  } finally {
    q.close();
    other.cleanup();
  }
});

test('a question worded in other inflections than the note is answered in hybrid mode (the gate counts it as known)', async () => {
  // "rotating" / "renewing" / "expiring": the note says "rotation", "renewed", "expire". Half the content words
  // unknown by exact form used to gate this to "no matching notes" although BM25 finds the TLS note.
  const q = 'when are certificates renewing before expiring';
  const lexical = await recall(p, q, { mode: 'bm25', limit: 3 });
  assert.equal(lexical.hits[0]?.path, 'adr-003-tls.md');
  const r = await recall(p, q, { mode: 'hybrid', vectors: channel, limit: 3 });
  assert.equal(r.hits[0]?.path, 'adr-003-tls.md', r.warnings.join(' | '));
});

test('a query with an unknown word is answered when most of its words are in one note BM25 found', async () => {
  // "bicycle" occurs nowhere and the best cosine is low, but "renewed" and "certificates" are both in the TLS note:
  // a match, not an accident on common words spread over notes (bestNoteCoverage 2/3 > MATCHED_SHARE).
  const q = 'renewed certificates for the bicycle';
  assert.ok(knownShare(p.index, q) < 1);
  const r = await recall(p, q, { mode: 'hybrid', vectors: channel, limit: 3 });
  assert.equal(r.hits[0]?.path, 'adr-003-tls.md', r.warnings.join(' | '));
  // Half the words in one note is not enough ("change", "flat" of "change a flat bicycle tyre": next test).
  const flat = 'how to change a flat bicycle tyre';
  assert.equal(bestNoteCoverage(p.index, flat, searchBm25(p.index, flat, 10).map((h) => h.docId)), 0.5);
});

test('an off-topic question that shares common words with a note gets no answer in hybrid mode, and says why', async () => {
  const q = 'how to change a flat bicycle tyre';
  // BM25 alone does match the configuration note on "change" and "flat": the gate is what removes it.
  const lexical = await recall(p, q, { mode: 'bm25', limit: 5 });
  assert.ok(lexical.hits.some((h) => h.path === 'adr-002-config.md'), JSON.stringify(lexical.hits.map((h) => h.path)));
  const r = await recall(p, q, { mode: 'hybrid', vectors: channel, limit: 5 });
  assert.deepEqual(r.hits.map((h) => `${h.path} ${h.explain.vector?.cosine}`), []);
  assert.ok(r.warnings.some((w) => /^no matching notes: 50 % of the query's words occur in no note/.test(w)), r.warnings.join(' | '));
  // The same channel without a calibrated floor has no gate either: it answers.
  const ungated = await recall(p, q, { mode: 'hybrid', vectors: { ...channel, floor: undefined }, limit: 5 });
  assert.ok(ungated.hits.length > 0);
});

test('a query whose every word some note contains is never gated, whatever its cosines', async () => {
  const r = await recall(p, 'change flat configuration file', { mode: 'hybrid', vectors: channel, limit: 5 });
  assert.equal(r.hits[0]?.path, 'adr-002-config.md', JSON.stringify(r.hits.map((h) => [h.path, h.explain])));
  assert.ok(!r.warnings.some((w) => /no matching notes/.test(w)));
});

const cand = (docId: number, bm25: boolean, cosine?: number): RankedDoc => ({
  docId,
  chunkId: docId,
  score: 1 / docId,
  explain: { ...(bm25 ? { bm25: { rank: docId, score: 5 } } : {}), ...(cosine === undefined ? {} : { vector: { rank: docId, cosine } }) },
});

test('applyAnswerGate: all words known → unchanged; some unknown → all or nothing by the gate; most unknown → only vector hits over the floor', () => {
  const cal = { floor: 0.58, gate: 0.51 };
  const ranked = [cand(1, true, 0.3), cand(2, true), cand(3, false, 0.6), cand(4, true, 0.59)];
  assert.deepEqual(applyAnswerGate(ranked, 1, 0.2, cal), ranked);
  assert.deepEqual(applyAnswerGate(ranked, 0.75, 0.52, cal), ranked);
  assert.deepEqual(applyAnswerGate(ranked, 0.75, 0.5, cal), []);
  assert.deepEqual(applyAnswerGate(ranked, 0.4, 0.6, cal).map((r) => r.docId), [3, 4], 'BM25 hits count only through their cosine');
  assert.deepEqual(applyAnswerGate([cand(1, true, 0.3)], 0.4, 0.6, cal), []);
});

test('the bundled model has a calibration, and a channel’s floor finds its gate', () => {
  const floor = relevanceFloor(engine.config.id);
  assert.ok(floor !== undefined, engine.config.id);
  assert.equal(answerGateFor(floor), CALIBRATIONS[engine.config.id].gate);
  assert.equal(answerGateFor(undefined), undefined);
  assert.equal(answerGateFor(0.123), undefined);
});
