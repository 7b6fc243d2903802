/**
 * Scores every row of a matrix of int8 vectors against one float32 query (dot products) with WebAssembly SIMD.
 *
 * Rows are held compactly: each vector as `dim` int8 codes and one float32 scale (symmetric, per row: code =
 * round(v / scale), scale = max |v| / 127), `dim + 4` bytes instead of `4 × dim`. For the 30k × 512 matrix of a
 * 5,000-note vault that is 15.5 MB instead of 61 MB — what a one-shot hybrid recall reads from the snapshot file
 * (vectorSnapshot.ts stores rows in exactly this format) and what a long-lived host keeps in memory. The cosine
 * error it adds is ≤ ~0.002 for unit vectors (measured on the corpus: docs/embeddings.md), far below the gaps the
 * floor and the fusion act on; the index keeps the float32 vectors, so nothing is lost.
 *
 * The kernel converts 4 codes at a time to f32x4 (load32_zero, two sign extensions, convert) and multiplies
 * them with the query: ~1.5× the instructions of a float kernel, a quarter of the memory traffic. The module is a
 * few dozen bytes, assembled here so there is no build step or binary file to ship. Hosts without WASM SIMD (or
 * dimensions not divisible by 4) use the plain JS loop over the same bytes.
 *
 * Exported function: scores(matrixPtr, queryPtr, rows, dim, outPtr); row r starts at matrixPtr + r × (dim + 4).
 */
const SIMD = 0xfd;
const op = {
  block: 0x02, loop: 0x03, end: 0x0b, br: 0x0c, brIf: 0x0d, localGet: 0x20, localSet: 0x21,
  i32Const: 0x41, i32GeS: 0x4e, i32Add: 0x6a, i32Mul: 0x6c, i32Shl: 0x74, f32Add: 0x92, f32Mul: 0x94, f32Load: 0x2a, f32Store: 0x38,
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
    // rowPtr = mat + r × (dim + 4)
    ...get(MAT), ...get(R), ...get(DIM), op.i32Const, 4, op.i32Add, op.i32Mul, op.i32Add, ...set(ROWPTR),
    SIMD, 0x0c, ...new Array(16).fill(0), ...set(ACC), // v128.const 0
    op.i32Const, 0, ...set(J),
    op.block, 0x40,
    op.loop, 0x40,
    ...get(J), ...get(DIM), op.i32GeS, op.brIf, 1,
    ...get(ACC),
    ...get(ROWPTR), ...get(J), op.i32Add, SIMD, 0x5c, 0x00, 0x00, // v128.load32_zero: 4 codes
    SIMD, 0x87, 0x01, // i16x8.extend_low_i8x16_s
    SIMD, 0xa7, 0x01, // i32x4.extend_low_i16x8_s
    SIMD, 0xfa, 0x01, // f32x4.convert_i32x4_s
    ...get(Q), ...get(J), ...times4, op.i32Add, SIMD, 0x00, 0x02, 0x00, // v128.load: 4 query floats
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
    ...get(ROWPTR), ...get(DIM), op.i32Add, op.f32Load, 0x00, 0x00, // the row's scale (align hint 1: any offset)
    op.f32Mul,
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

/** Bytes of one stored row: `dim` int8 codes, then the float32 scale (little-endian). */
export const rowBytes = (dim: number): number => dim + 4;

/** Quantizes `count` float rows of `src` into `dst` (row format above), starting at byte `at`. */
export function quantizeRows(src: Float32Array, count: number, dim: number, dst: Uint8Array, at = 0): void {
  const view = new DataView(dst.buffer, dst.byteOffset, dst.byteLength);
  const stride = rowBytes(dim);
  for (let r = 0; r < count; r++) {
    const off = r * dim;
    let max = 0;
    for (let j = 0; j < dim; j++) max = Math.max(max, Math.abs(src[off + j]));
    const scale = max / 127;
    const inv = scale > 0 ? 1 / scale : 0;
    const base = at + r * stride;
    for (let j = 0; j < dim; j++) view.setInt8(base + j, Math.round(src[off + j] * inv));
    view.setFloat32(base + dim, scale, true);
  }
}

/** A matrix loaded once, scored against many queries. */
export class DotKernel {
  private wasm: Wasm | null = null;
  /** The rows when there is no WASM (same format); with WASM the rows live in its memory. */
  private plain: Uint8Array = new Uint8Array(0);
  private rows = 0;
  private readonly stride: number;
  private useSimd: boolean;

  constructor(readonly dim: number, useSimd = true) {
    this.stride = rowBytes(dim);
    this.useSimd = useSimd;
  }

  get simd(): boolean {
    return this.wasm !== null;
  }

  /** Loads float rows (quantized on the way in). */
  load(matrix: Float32Array, rows: number): void {
    this.loadWith(rows, (target) => quantizeRows(matrix, rows, this.dim, target));
  }

  /**
   * Loads `rows` rows that the caller writes, already in the row format, straight into the kernel's memory (a
   * snapshot file read into it): a big matrix is then held once, not once in a read buffer and again here.
   */
  loadWith(rows: number, fill: (target: Uint8Array) => void): void {
    const mod = this.useSimd && this.dim % 4 === 0 ? wasmModule() : null;
    this.rows = rows;
    if (!mod) {
      this.wasm = null;
      this.plain = new Uint8Array(rows * this.stride);
      fill(this.plain);
      return;
    }
    const wasm = new WebAssembly.Instance(mod).exports as unknown as Wasm;
    const pages = Math.ceil(this.bytesFor(rows) / 65536);
    if (pages > 1) wasm.memory.grow(pages - 1);
    fill(new Uint8Array(wasm.memory.buffer, 0, rows * this.stride));
    this.wasm = wasm;
    this.plain = new Uint8Array(0);
  }

  /** Matrix, query and scores: the memory a WASM instance needs for `rows` rows. */
  private bytesFor(rows: number): number {
    return rows * this.stride + this.dim * 4 + rows * 4 + 16;
  }

  /**
   * Adds `count` float rows after the loaded ones, growing the memory in place (by half again at least, so a fill
   * that adds a few rows at a time costs amortised O(rows added), never a copy of the whole matrix per step).
   */
  append(rows: Float32Array, count: number): void {
    const total = this.rows + count;
    if (this.wasm) {
      const bytes = this.bytesFor(total);
      const have = this.wasm.memory.buffer.byteLength;
      if (bytes > have) this.wasm.memory.grow(Math.ceil(Math.max(bytes - have, have / 2) / 65536));
      quantizeRows(rows, count, this.dim, new Uint8Array(this.wasm.memory.buffer), this.rows * this.stride);
    } else {
      if (this.plain.length < total * this.stride) {
        const grown = new Uint8Array(Math.max(total * this.stride, Math.ceil(this.plain.length * 1.5)));
        grown.set(this.plain.subarray(0, this.rows * this.stride));
        this.plain = grown;
      }
      quantizeRows(rows, count, this.dim, this.plain, this.rows * this.stride);
    }
    this.rows = total;
  }

  private bytes(): Uint8Array {
    return this.wasm ? new Uint8Array(this.wasm.memory.buffer, 0, this.rows * this.stride) : this.plain;
  }

  /** Row `i` in the stored format (a view: valid until the next append or load). */
  rowBytes(i: number): Uint8Array {
    return this.bytes().subarray(i * this.stride, (i + 1) * this.stride);
  }

  /** Row `i` as floats (code × scale), a copy. */
  row(i: number): Float32Array {
    const b = this.rowBytes(i);
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const scale = view.getFloat32(this.dim, true);
    return Float32Array.from({ length: this.dim }, (_, j) => view.getInt8(j) * scale);
  }

  scores(query: Float32Array): Float32Array {
    const { rows, dim } = this;
    if (this.wasm) {
      const qOff = (rows * this.stride + 15) & ~15;
      const outOff = qOff + dim * 4;
      new Float32Array(this.wasm.memory.buffer, qOff, dim).set(query);
      this.wasm.scores(0, qOff, rows, dim, outOff);
      return new Float32Array(this.wasm.memory.buffer, outOff, rows).slice();
    }
    const b = this.plain;
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const codes = new Int8Array(b.buffer, b.byteOffset, b.byteLength);
    const out = new Float32Array(rows);
    for (let r = 0; r < rows; r++) {
      const off = r * this.stride;
      let s = 0;
      for (let j = 0; j < dim; j++) s += codes[off + j] * query[j];
      out[r] = s * view.getFloat32(off + dim, true);
    }
    return out;
  }
}
