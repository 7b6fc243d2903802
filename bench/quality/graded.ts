import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IndexDb } from '../../src/core/index/db';
import { DEFAULT_PASSAGES, passagesOf, VectorStore } from '../../src/core/search/vector';
import { EmbeddingEngine } from '../../src/core/embed/engine';
import { bundledModelDir } from '../../src/core/embed/modelLocation';

/** One graded query of queries.json: the documents (corpus-relative paths) that answer it, with their grade. */
export interface GradedQuery {
  id: string;
  /** exact / paraphrase / … (the query types the bench reports apart). */
  type: string;
  query: string;
  relevant: Record<string, number>;
}

export function readGradedQueries(): GradedQuery[] {
  return (JSON.parse(readFileSync(join(__dirname, 'queries.json'), 'utf8')) as { queries: GradedQuery[] }).queries;
}

const args = process.argv.slice(2);
/** The value after `--name` on the command line. */
export const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

/** Whether `--name` is on the command line. */
export const flag = (name: string): boolean => args.includes(name);

/** The real ADR corpus, read in place from ../shared (never copied), or `--corpus DIR`. */
export const corpusDir = (): string => resolve(opt('--corpus') ?? join(__dirname, '..', '..', '..', 'shared', 'corpus', 'adr-vault'));

/** nDCG@10 with gains 2^g − 1, and R@5 = the share of grade ≥ 2 documents in the top 5 (of at most 5). */
export function ndcg10(ranked: string[], rel: Record<string, number>): number {
  const gain = (g: number) => 2 ** g - 1;
  const dcg = ranked.slice(0, 10).reduce((s, p, i) => s + gain(rel[p] ?? 0) / Math.log2(i + 2), 0);
  const ideal = Object.values(rel).sort((a, b) => b - a).slice(0, 10).reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}
export function recall5(ranked: string[], rel: Record<string, number>): number {
  const wanted = Object.entries(rel).filter(([, g]) => g >= 2).map(([p]) => p);
  if (!wanted.length) return 0;
  const top = new Set(ranked.slice(0, 5));
  return wanted.filter((p) => top.has(p)).length / Math.min(5, wanted.length);
}

/**
 * The model the quality figures are measured with: `--model DIR`, else the float USE-lite conversion when the
 * build has it (dist/models/use-lite: the vectors cached so far are its), else the bundled model.
 */
export function qualityModelDir(): string {
  const float = resolve(join(__dirname, '..', '..', 'dist', 'models', 'use-lite'));
  return opt('--model') ?? (existsSync(join(float, 'k0model.json')) ? float : bundledModelDir());
}

/** The index run.ts cached with every vector, the bundled model and its vector store (floor.ts, paraphrase.ts). */
export async function openCachedQualityIndex(threads: number): Promise<{ idx: IndexDb; engine: EmbeddingEngine; store: VectorStore }> {
  const dbPath = resolve(join(__dirname, '..', '..', '.cache', 'bench-quality', 'index.db'));
  if (!existsSync(dbPath)) throw new Error(`no cached index at ${dbPath}: run npx tsx bench/quality/run.ts first`);
  const idx = IndexDb.open(dbPath);
  const engine = await EmbeddingEngine.load(qualityModelDir(), { threads, batchSize: 32 });
  const store = new VectorStore(idx, engine.config.id, engine.config.dimension);
  if (store.pending() > 0) throw new Error(`${store.pending()} passages have no vector yet: run bench/quality/run.ts first`);
  return { idx, engine, store };
}

/**
 * Every passage vector of the cached index in one matrix, with its note and chunk, for candidates that need
 * per-passage cosines (document aggregation, second vector fields, two query vectors): the product's
 * VectorStore.search returns only each note's best passage. Bench only; exact dot products in JS.
 */
export class PassageMatrix {
  readonly rows: { docId: number; chunkId: number }[] = [];
  private readonly m: Float32Array;
  constructor(idx: IndexDb, modelId: string, readonly dim: number) {
    const title = new Map(idx.all('SELECT id, title FROM documents').map((r) => [Number(r.id), String(r.title)]));
    const stored = new Map(idx.all('SELECT hash, vec FROM vectors WHERE model = ?', [modelId]).map((r) => [String(r.hash), r.vec as Uint8Array]));
    const vecs: Uint8Array[] = [];
    for (const c of idx.all('SELECT id, doc_id, heading, text FROM chunks ORDER BY id')) {
      const chunk = { id: Number(c.id), docId: Number(c.doc_id), title: title.get(Number(c.doc_id)) ?? '', heading: String(c.heading), text: String(c.text) };
      for (const p of passagesOf(chunk, DEFAULT_PASSAGES)) {
        const b = stored.get(p.hash);
        if (!b) continue;
        this.rows.push({ docId: chunk.docId, chunkId: chunk.id });
        vecs.push(b);
      }
    }
    this.m = new Float32Array(vecs.length * dim);
    vecs.forEach((b, i) => this.m.set(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), i * dim));
  }
  /** Cosine of every passage with `q` (vectors are normalised). */
  scores(q: Float32Array): Float32Array {
    const out = new Float32Array(this.rows.length);
    for (let r = 0, o = 0; r < out.length; r++, o += this.dim) {
      let s = 0;
      for (let i = 0; i < this.dim; i++) s += this.m[o + i] * q[i];
      out[r] = s;
    }
    return out;
  }
  /** Passages best first, as aggregateDocs reads them. */
  ranked(scores: Float32Array): { docId: number; chunkId: number; score: number }[] {
    return this.rows.map((r, i) => ({ ...r, score: scores[i] })).sort((a, b) => b.score - a.score);
  }
}
