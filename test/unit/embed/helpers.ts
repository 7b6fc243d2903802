import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { openProject } from '../../../src/core/project';
import { VectorStore } from '../../../src/core/search/vector';
import { BUNDLED_MODEL_ID } from '../../../src/core/embed/modelLocation';

const ROOT = join(__dirname, '..', '..', '..');

/** Builds dist/models/use-lite-int8 (the default model) the way `node esbuild.mjs` does (a no-op when up to date). */
export function ensureBundledModel(): string {
  const dir = join(ROOT, 'dist', 'models', 'use-lite-int8');
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'convert-model.mjs'), dir, '--int8'], { stdio: 'inherit' });
  return dir;
}

/** Builds dist/models/use-lite, the float conversion: the parity reference against the package's TF.js runtime. */
export function ensureFloatModel(): string {
  const dir = join(ROOT, 'dist', 'models', 'use-lite');
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'convert-model.mjs'), dir], { stdio: 'inherit' });
  return dir;
}

export const ORT_WASM_DIR = join(ROOT, 'node_modules', 'onnxruntime-web', 'dist');

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** The parity texts: Unicode, NFKC, whitespace, reserved-token look-alikes, near-empty and over-window texts. */
const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i} explains why the index lock retries with back-off.`).join(' ');
export const PARITY_TEXTS = [
  'hello world',
  'How do we lock a payment with Redis?',
  'Acquire a Redis mutex before charging',
  'Use a distributed lock so the card is not charged twice',
  'SQLITE_BUSY',
  'error[E0502]: cannot borrow `x` as mutable because it is also borrowed as immutable',
  'a',
  '?',
  ' ',
  '  leading and trailing spaces  ',
  'Ünïcödé façade naïve café',
  '中文文本嵌入测试',
  'Здравствуйте, как дела?',
  'مرحبا بالعالم',
  'emoji 😀🔥🚀 in the middle 👍',
  'tabs\tand\nnewlines\r\nmixed',
  'ﬁ ligature and full-width ＡＢＣ１２３ (NFKC)',
  '<s> reserved </s> looking extra_token_id_1',
  'x'.repeat(400),
  long,
  `${long} ${long}`,
  '#  ADR-0007: Use SQLite FTS5 for lexical search\n\nStatus: accepted. We chose FTS5 because it ships with bm25().',
];

/**
 * Stores made-up unit vectors for the first `n` passages, as a partial `scan --embed` would have: a one-shot
 * recall starts the model only when some vector of it exists (issue 14 item 4). Random 512-d directions sit near
 * cosine 0 to any query, far below the relevance floor.
 */
export async function seedVectors(root: string, n: number): Promise<void> {
  const project = openProject({ vault: root, env: {} });
  try {
    await project.scan();
    const store = new VectorStore(project.index, BUNDLED_MODEL_ID, 512);
    store.put(
      store.pendingPassages().slice(0, n).map((p, i) => {
        const v = Float32Array.from({ length: 512 }, (_, j) => Math.sin((i + 1) * (j + 3)));
        const norm = Math.hypot(...v);
        return { hash: p.hash, vector: v.map((x) => x / norm) };
      }),
    );
  } finally {
    project.close();
  }
}
