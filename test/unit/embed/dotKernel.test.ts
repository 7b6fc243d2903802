import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DotKernel } from '../../../src/core/search/dotKernel';

function random(n: number, seed: number): Float32Array {
  let s = seed;
  return Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5);
}

test('the WASM SIMD kernel scores like the plain loop; odd dimensions fall back to JS', () => {
  for (const [rows, dim] of [[1, 4], [37, 512], [300, 384], [5, 6]]) {
    const m = random(rows * dim, rows + dim);
    const q = random(dim, 7);
    const simd = new DotKernel(dim);
    simd.load(m, rows);
    assert.equal(simd.simd, dim % 4 === 0, `SIMD used for dim ${dim}`);
    const got = simd.scores(q);
    assert.equal(got.length, rows);
    for (let r = 0; r < rows; r++) {
      let want = 0;
      for (let j = 0; j < dim; j++) want += m[r * dim + j] * q[j];
      assert.ok(Math.abs(got[r] - want) < 1e-4, `row ${r} of ${rows}×${dim}: ${got[r]} vs ${want}`);
    }
    // Scores are a copy: a second query does not overwrite the first result.
    const again = simd.scores(random(dim, 99));
    assert.notEqual(again[0], got[0]);
  }
  const empty = new DotKernel(512);
  empty.load(new Float32Array(0), 0);
  assert.equal(empty.scores(random(512, 1)).length, 0);
});
