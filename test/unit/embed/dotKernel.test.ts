// The search kernel (dotKernel.ts): int8 rows with a scale each, scored by WASM SIMD or, without it, a JS loop
// over the same bytes. Both must give the same scores, and those scores must be the float dot products within
// the quantization error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DotKernel, quantizeRows, rowBytes } from '../../../src/core/search/dotKernel';

function random(n: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5);
}

/** Rows scaled to unit length, as the vector store's are. */
function unitRows(rows: number, dim: number, seed: number): Float32Array {
  const m = random(rows * dim, seed);
  for (let r = 0; r < rows; r++) {
    const row = m.subarray(r * dim, (r + 1) * dim);
    const n = Math.hypot(...row);
    for (let j = 0; j < dim; j++) row[j] /= n;
  }
  return m;
}

const exact = (m: Float32Array, q: Float32Array, r: number, dim: number) => {
  let s = 0;
  for (let j = 0; j < dim; j++) s += m[r * dim + j] * q[j];
  return s;
};

test('SIMD and the plain loop score the same int8 rows alike, and within quantization error of the floats', () => {
  for (const [rows, dim] of [[1, 4], [37, 512], [300, 384], [5, 6]]) {
    const m = unitRows(rows, dim, rows + dim);
    const q = unitRows(1, dim, 7);
    const simd = new DotKernel(dim);
    simd.load(m, rows);
    assert.equal(simd.simd, dim % 4 === 0, `SIMD used for dim ${dim}`);
    const plain = new DotKernel(dim, false);
    plain.load(m, rows);
    assert.equal(plain.simd, false);
    const got = simd.scores(q);
    const ref = plain.scores(q);
    assert.equal(got.length, rows);
    for (let r = 0; r < rows; r++) {
      assert.ok(Math.abs(got[r] - ref[r]) < 1e-5, `row ${r} of ${rows}×${dim}: SIMD ${got[r]} vs JS ${ref[r]}`);
      // Unit vectors: each code is off by at most half a step (max|v| / 254), so the dot product by far less.
      assert.ok(Math.abs(got[r] - exact(m, q, r, dim)) < 0.01, `row ${r} of ${rows}×${dim}: ${got[r]} vs ${exact(m, q, r, dim)}`);
    }
    // Scores are a copy: a second query does not overwrite the first result.
    const again = simd.scores(unitRows(1, dim, 99));
    assert.notEqual(again[0], got[0]);
  }
  const empty = new DotKernel(512);
  empty.load(new Float32Array(0), 0);
  assert.equal(empty.scores(random(512, 1)).length, 0);
});

test('a row is dim codes and a scale (dim + 4 bytes), and reads back as floats within half a step', () => {
  const dim = 8;
  const v = Float32Array.from([0.5, -0.25, 0, 0.125, -0.5, 0.3, -0.01, 0.2]);
  const bytes = new Uint8Array(rowBytes(dim));
  quantizeRows(v, 1, dim, bytes);
  const scale = new DataView(bytes.buffer).getFloat32(dim, true);
  assert.ok(Math.abs(scale - 0.5 / 127) < 1e-9);
  assert.equal(new Int8Array(bytes.buffer)[0], 127, 'the largest component gets the largest code');
  assert.equal(new Int8Array(bytes.buffer)[4], -127);
  const k = new DotKernel(dim);
  k.loadWith(1, (target) => target.set(bytes));
  assert.deepEqual([...k.rowBytes(0)], [...bytes]);
  const back = k.row(0);
  for (let j = 0; j < dim; j++) assert.ok(Math.abs(back[j] - v[j]) <= scale / 2 + 1e-9, `component ${j}: ${back[j]} vs ${v[j]}`);
  // An all-zero vector (never stored in practice) scores 0, not NaN.
  const z = new DotKernel(dim);
  z.load(new Float32Array(dim), 1);
  assert.equal(z.scores(v)[0], 0);
});

test('rows appended a few at a time score as if loaded at once (the memory grows in place)', () => {
  const dim = 64;
  const m = unitRows(500, dim, 3);
  const q = unitRows(1, dim, 5);
  const once = new DotKernel(dim);
  once.load(m, 500);
  const grown = new DotKernel(dim);
  grown.load(new Float32Array(0), 0);
  for (let r = 0; r < 500; r += 7) grown.append(m.subarray(r * dim, Math.min(500, r + 7) * dim), Math.min(7, 500 - r));
  assert.deepEqual([...grown.scores(q)], [...once.scores(q)]);
});
