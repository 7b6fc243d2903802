// A minimal protobuf writer for the handful of ONNX messages a converted model needs
// (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto).
// Field numbers follow onnx/onnx.proto. Repeated scalars are written unpacked, which every
// protobuf parser accepts for proto2 files like onnx.proto.

const enc = new TextEncoder();

function varint(value) {
  // Accepts numbers and bigints; negative int64 values use the 10-byte two's-complement form.
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/** Builds one message as a list of byte chunks so large tensors are never copied twice. */
export class Msg {
  constructor() {
    this.chunks = [];
    this.size = 0;
  }
  push(bytes) {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }
  tag(field, wire) {
    this.push(varint((field << 3) | wire));
  }
  int(field, value) {
    this.tag(field, 0);
    this.push(varint(value));
    return this;
  }
  float(field, value) {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }
  bytes(field, data) {
    this.tag(field, 2);
    this.push(varint(data.length));
    this.push(data);
    return this;
  }
  str(field, s) {
    return this.bytes(field, enc.encode(s));
  }
  msg(field, m) {
    this.tag(field, 2);
    this.push(varint(m.size));
    for (const c of m.chunks) this.push(c);
    return this;
  }
  toBytes() {
    const out = new Uint8Array(this.size);
    let off = 0;
    for (const c of this.chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }
}

export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, BOOL: 9 };
const AttrType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 };

/** TensorProto with raw little-endian data. `data` is a typed array matching `dataType`. */
export function tensor(name, dataType, dims, data) {
  const m = new Msg();
  for (const d of dims) m.int(1, d);
  m.int(2, dataType);
  m.str(8, name);
  m.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return m;
}

function attribute(name, value) {
  const m = new Msg().str(1, name);
  if (typeof value === 'number' && Number.isInteger(value)) m.int(3, value).int(20, AttrType.INT);
  else if (typeof value === 'number') m.float(2, value).int(20, AttrType.FLOAT);
  else if (typeof value === 'string') m.str(4, value).int(20, AttrType.STRING);
  else if (Array.isArray(value)) {
    for (const v of value) m.int(8, v);
    m.int(20, AttrType.INTS);
  } else if (value && value.kind === 'float') m.float(2, value.value).int(20, AttrType.FLOAT);
  else if (value instanceof Msg) m.msg(5, value).int(20, AttrType.TENSOR);
  else throw new Error(`unsupported attribute ${name}`);
  return m;
}

export function node(opType, inputs, outputs, name, attrs = {}) {
  const m = new Msg();
  for (const i of inputs) m.str(1, i);
  for (const o of outputs) m.str(2, o);
  m.str(3, name);
  m.str(4, opType);
  for (const [k, v] of Object.entries(attrs)) m.msg(5, attribute(k, v));
  return m;
}

/** ValueInfoProto for a tensor; a string dim becomes a symbolic dimension (dim_param). */
export function valueInfo(name, elemType, dims) {
  const shape = new Msg();
  for (const d of dims) shape.msg(1, typeof d === 'string' ? new Msg().str(2, d) : new Msg().int(1, d));
  const tensorType = new Msg().int(1, elemType).msg(2, shape);
  const type = new Msg().msg(1, tensorType);
  return new Msg().str(1, name).msg(2, type);
}

export function graph({ name, nodes, initializers, inputs, outputs }) {
  const g = new Msg();
  for (const n of nodes) g.msg(1, n);
  g.str(2, name);
  for (const t of initializers) g.msg(5, t);
  for (const i of inputs) g.msg(11, i);
  for (const o of outputs) g.msg(12, o);
  return g;
}

export function model({ graph: g, opset, producer, docString, metadata = {} }) {
  const m = new Msg();
  m.int(1, 8); // ir_version 8 is the first that allows opset 18
  m.str(2, producer.name);
  m.str(3, producer.version);
  m.str(6, docString);
  m.msg(7, g);
  m.msg(8, new Msg().str(1, '').int(2, opset));
  for (const [k, v] of Object.entries(metadata)) m.msg(14, new Msg().str(1, k).str(2, v));
  return m.toBytes();
}
