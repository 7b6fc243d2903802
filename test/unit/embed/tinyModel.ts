import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataType, graph, model, node, tensor, valueInfo } from '../../../scripts/onnxProto.mjs';

/**
 * Writes a small but real model folder: token embeddings of `dim` dimensions (a hashed pattern), output
 * [B,T,dim] mean-pooled and normalised by the engine, with the bundled tokenizer. It exercises the
 * pluggable path (pooling mean, normalize, another dimension) in milliseconds.
 */
export function writeTinyModel(dir: string, bundledDir: string, id: string, dim = 8): { sha256: Record<string, string> } {
  mkdirSync(dir, { recursive: true });
  const vocab = 8002;
  const table = new Float32Array(vocab * dim);
  for (let i = 0; i < table.length; i++) table[i] = Math.sin(i * 12.9898 + dim) * 0.5;
  const bytes = model({
    graph: graph({
      name: 'tiny',
      nodes: [node('Gather', ['table', 'input_ids'], ['hidden'], 'lookup', { axis: 0 }), node('Identity', ['attention_mask'], ['mask_echo'], 'keep_mask')],
      initializers: [tensor('table', DataType.FLOAT, [vocab, dim], table)],
      inputs: [valueInfo('input_ids', DataType.INT64, ['b', 't']), valueInfo('attention_mask', DataType.INT64, ['b', 't'])],
      outputs: [valueInfo('hidden', DataType.FLOAT, ['b', 't', dim]), valueInfo('mask_echo', DataType.INT64, ['b', 't'])],
    }),
    opset: 18,
    producer: { name: 'k0maru-test', version: '1' },
    docString: 'tiny test model',
  });
  writeFileSync(join(dir, 'model.onnx'), bytes);
  copyFileSync(join(bundledDir, 'tokenizer.json'), join(dir, 'tokenizer.json'));
  const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
  const files = { 'model.onnx': sha(join(dir, 'model.onnx')), 'tokenizer.json': sha(join(dir, 'tokenizer.json')) };
  writeFileSync(join(dir, 'k0model.json'), JSON.stringify({ id, dimension: dim, maxTokens: 32, pooling: 'mean', normalize: true, output: 'hidden', files }, null, 2));
  return { sha256: files };
}
