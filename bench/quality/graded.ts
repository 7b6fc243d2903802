import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IndexDb } from '../../src/core/index/db';
import { VectorStore } from '../../src/core/search/vector';
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

/** The index run.ts cached with every vector, the bundled model and its vector store (floor.ts, paraphrase.ts). */
export async function openCachedQualityIndex(threads: number): Promise<{ idx: IndexDb; engine: EmbeddingEngine; store: VectorStore }> {
  const dbPath = resolve(join(__dirname, '..', '..', '.cache', 'bench-quality', 'index.db'));
  if (!existsSync(dbPath)) throw new Error(`no cached index at ${dbPath}: run npx tsx bench/quality/run.ts first`);
  const idx = IndexDb.open(dbPath);
  const engine = await EmbeddingEngine.load(bundledModelDir(), { threads, batchSize: 32 });
  const store = new VectorStore(idx, engine.config.id, engine.config.dimension);
  if (store.pending() > 0) throw new Error(`${store.pending()} passages have no vector yet: run bench/quality/run.ts first`);
  return { idx, engine, store };
}
