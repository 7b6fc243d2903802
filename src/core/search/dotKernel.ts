/**
 * Scores every row of a float32 matrix against one query (dot products) with WebAssembly SIMD: 4 lanes per
 * instruction instead of V8's scalar loop, ~3–4× faster on the 30k × 512 matrices of a 5,000-note vault.
 * The module is a few dozen bytes, assembled here so there is no build step or binary file to ship. Hosts
 * without WASM SIMD (or dimensions not divisible by 4) use the plain JS loop.
 *
 * Exported function: scores(matrixPtr, queryPtr, rows, dim, outPtr).
 */
const SIMD = 0xfd;
const op = {
  block: 0x02, loop: 0x03, end: 0x0b, br: 0x0c, brIf: 0x0d, localGet: 0x20, localSet: 0x21,
  i32Const: 0x41, i32GeS: 0x4e, i32Add: 0x6a, i32Mul: 0x6c, i32Shl: 0x74, f32Add: 0x92, f32Store: 0x38,
} as const;
// Locals: 0 mat, 1 q, 2 rows, 3 dim, 4 out (params); 5 r, 6 j, 7 rowPtr (i32); 8 acc (v128).
const [MAT, Q, ROWS, DIM, OUT, R, J, ROWPTR, ACC] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const get = (i: number) => [op.localGet, i];
const set = (i: number) => [op.localSet, i];
const times4 = [op.i32Const, 2, op.i32Shl];

function assemble(): Uint8Array<ArrayBuffer> {
  const body = [
    0x02, 0x03, 0x7f, 0x01, 0x7b, // locals: 3 × i32, 1 × v128
    op.block, 0x40,
    op.loop, 0x40,
    ...get(R), ...get(ROWS), op.i32GeS, op.brIf, 1,
    ...get(MAT), ...get(R), ...get(DIM), op.i32Mul, ...times4, op.i32Add, ...set(ROWPTR),
    SIMD, 0x0c, ...new Array(16).fill(0), ...set(ACC), // v128.const 0
    op.i32Const, 0, ...set(J),
    op.block, 0x40,
    op.loop, 0x40,
    ...get(J), ...get(DIM), op.i32GeS, op.brIf, 1,
    ...get(ACC),
    ...get(ROWPTR), ...get(J), ...times4, op.i32Add, SIMD, 0x00, 0x02, 0x00, // v128.load
    ...get(Q), ...get(J), ...times4, op.i32Add, SIMD, 0x00, 0x02, 0x00,
    SIMD, 0xe6, 0x01, // f32x4.mul
    SIMD, 0xe4, 0x01, // f32x4.add
    ...set(ACC),
    ...get(J), op.i32Const, 4, op.i32Add, ...set(J),
    op.br, 0,
    op.end,
    op.end,
    ...get(OUT), ...get(R), ...times4, op.i32Add,
    ...get(ACC), SIMD, 0x1f, 0,
    ...get(ACC), SIMD, 0x1f, 1, op.f32Add,
    ...get(ACC), SIMD, 0x1f, 2, op.f32Add,
    ...get(ACC), SIMD, 0x1f, 3, op.f32Add,
    op.f32Store, 0x02, 0x00,
    ...get(R), op.i32Const, 1, op.i32Add, ...set(R),
    op.br, 0,
    op.end,
    op.end,
    op.end,
  ];
  const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content];
  const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('scores'), 0x00, 0, ...name('memory'), 0x02, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

interface Wasm {
  scores(mat: number, q: number, rows: number, dim: number, out: number): void;
  memory: WebAssembly.Memory;
}

let compiled: WebAssembly.Module | null | undefined;
function wasmModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      const bytes = assemble();
      compiled = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** A matrix loaded once, scored against many queries. */
export class DotKernel {
  private wasm: Wasm | null = null;
  private matrix: Float32Array = new Float32Array(0);
  private rows = 0;

  constructor(readonly dim: number) {}

  get simd(): boolean {
    return this.wasm !== null;
  }

  load(matrix: Float32Array, rows: number, useSimd = true): void {
    this.rows = rows;
    const mod = useSimd && this.dim % 4 === 0 ? wasmModule() : null;
    if (!mod) {
      this.wasm = null;
      this.matrix = matrix;
      return;
    }
    const wasm = new WebAssembly.Instance(mod).exports as unknown as Wasm;
    const bytes = (rows * this.dim + this.dim + rows) * 4;
    const pages = Math.ceil(bytes / 65536);
    if (pages > 1) wasm.memory.grow(pages - 1);
    new Float32Array(wasm.memory.buffer, 0, rows * this.dim).set(matrix.subarray(0, rows * this.dim));
    this.wasm = wasm;
    this.matrix = new Float32Array(0); // the copy in WASM memory is the one used
  }

  /**
   * Adds `count` rows after the loaded ones, growing the memory in place (by half again at least, so a fill that
   * adds a few rows at a time costs amortised O(rows added), never a copy of the whole matrix per step).
   */
  /**
   * Like load(), but the caller writes the rows straight into the kernel's memory (a file read into it): a big
   * matrix is then held once instead of once in a read buffer and again here.
   */
  loadWith(rows: number, fill: (target: Float32Array) => void, useSimd = true): void {
    const mod = useSimd && this.dim % 4 === 0 ? wasmModule() : null;
    if (!mod) {
      const matrix = new Float32Array(rows * this.dim);
      fill(matrix);
      this.load(matrix, rows, false);
      return;
    }
    const wasm = new WebAssembly.Instance(mod).exports as unknown as Wasm;
    const pages = Math.ceil(((rows * this.dim + this.dim + rows) * 4) / 65536);
    if (pages > 1) wasm.memory.grow(pages - 1);
    fill(new Float32Array(wasm.memory.buffer, 0, rows * this.dim));
    this.rows = rows;
    this.wasm = wasm;
    this.matrix = new Float32Array(0);
  }

  append(rows: Float32Array, count: number): void {
    const dim = this.dim;
    const total = this.rows + count;
    if (this.wasm) {
      const bytes = (total * dim + dim + total) * 4;
      const have = this.wasm.memory.buffer.byteLength;
      if (bytes > have) this.wasm.memory.grow(Math.ceil(Math.max(bytes - have, have / 2) / 65536));
      new Float32Array(this.wasm.memory.buffer, this.rows * dim * 4, count * dim).set(rows.subarray(0, count * dim));
    } else {
      if (this.matrix.length < total * dim) {
        const grown = new Float32Array(Math.max(total * dim, Math.ceil(this.matrix.length * 1.5)));
        grown.set(this.matrix.subarray(0, this.rows * dim));
        this.matrix = grown;
      }
      this.matrix.set(rows.subarray(0, count * dim), this.rows * dim);
    }
    this.rows = total;
  }

  /** Row `i` (a view: valid until the next append or load). */
  row(i: number): Float32Array {
    const m = this.wasm ? new Float32Array(this.wasm.memory.buffer, 0, this.rows * this.dim) : this.matrix;
    return m.subarray(i * this.dim, (i + 1) * this.dim);
  }

  scores(query: Float32Array): Float32Array {
    const { rows, dim } = this;
    if (this.wasm) {
      const qOff = rows * dim * 4;
      const outOff = qOff + dim * 4;
      new Float32Array(this.wasm.memory.buffer, qOff, dim).set(query);
      this.wasm.scores(0, qOff, rows, dim, outOff);
      return new Float32Array(this.wasm.memory.buffer, outOff, rows).slice();
    }
    const m = this.matrix;
    const out = new Float32Array(rows);
    for (let r = 0; r < rows; r++) {
      const off = r * dim;
      let s = 0;
      for (let j = 0; j < dim; j++) s += m[off + j] * query[j];
      out[r] = s;
    }
    return out;
  }
}
