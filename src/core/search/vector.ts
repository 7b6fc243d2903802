import { createHash } from 'node:crypto';
import type { IndexDb } from '../index/db';
import type { ChannelHit } from './bm25';
import { DotKernel } from './dotKernel';

/**
 * Vectors live in the index db beside the chunks, keyed by (model id, hash of the exact text embedded), so an
 * unchanged passage is never embedded twice, a rename or a re-scan costs nothing, and the vectors of two models
 * can never be compared with each other. `vector_models` records each model's dimension: a model whose
 * dimension changed under the same id loses its old vectors.
 */
export const VECTOR_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS vector_models(model TEXT PRIMARY KEY, dim INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vectors(
  model TEXT NOT NULL,
  hash TEXT NOT NULL,
  vec BLOB NOT NULL,            -- float32 little-endian, L2-normalised
  PRIMARY KEY(model, hash)
) WITHOUT ROWID;
`;

export interface PassageOptions {
  /**
   * Words per embedded passage. USE-lite reads 128 tokens; ~60 English words stay inside that window, where the
   * 100-word lexical chunks would be cut. A chunk longer than this yields several passages.
   */
  windowWords: number;
  /** Text put before every passage: nothing, the note title, or title and heading path. */
  prefix: 'none' | 'title' | 'title+heading';
}

export const DEFAULT_PASSAGES: PassageOptions = { windowWords: 60, prefix: 'title' };

export interface Passage {
  chunkId: number;
  docId: number;
  hash: string;
  text: string;
}

/** Splits one chunk into the passages the vector channel embeds. Deterministic: same chunk → same hashes. */
export function passagesOf(chunk: { id: number; docId: number; title: string; heading: string; text: string }, opts: PassageOptions): Passage[] {
  const words = chunk.text.split(/\s+/).filter(Boolean);
  const prefix = opts.prefix === 'none' ? '' : opts.prefix === 'title' ? chunk.title : [chunk.title, chunk.heading].filter(Boolean).join(' — ');
  const out: Passage[] = [];
  const step = Math.max(1, opts.windowWords);
  for (let i = 0; i < Math.max(words.length, 1); i += step) {
    const body = words.slice(i, i + step).join(' ');
    const text = prefix && body ? `${prefix}\n${body}` : prefix || body;
    out.push({ chunkId: chunk.id, docId: chunk.docId, hash: createHash('sha1').update(text).digest('hex'), text });
  }
  return out;
}

function toBlob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

/**
 * The vector channel's store and brute-force search for one model. Search is exact cosine over an in-memory
 * float32 matrix (vectors are normalised, so cosine is a dot product), scored with WASM SIMD (dotKernel.ts):
 * O(passages × dimension) per query, ~3 ms for 30,000 passages of 512 dims. See docs/embeddings.md for when an
 * ANN index would pay off.
 */
export class VectorStore {
  private passages: Passage[] = [];
  private have = new Set<string>();
  private kernel = new DotKernel(0);
  private rowPassage: number[] = [];
  private pendingCount: number | undefined;

  constructor(
    private readonly idx: IndexDb,
    readonly modelId: string,
    readonly dim: number,
    readonly opts: PassageOptions = DEFAULT_PASSAGES,
  ) {
    idx.write(() => {
      idx.exec(VECTOR_SCHEMA_SQL);
      const known = idx.get('SELECT dim FROM vector_models WHERE model = ?', [modelId]);
      if (known && Number(known.dim) !== dim) idx.run('DELETE FROM vectors WHERE model = ?', [modelId]);
      idx.run('INSERT OR REPLACE INTO vector_models(model, dim) VALUES (?, ?)', [modelId, dim]);
    });
    this.refresh();
  }

  /** What `refresh()` last loaded: the scanner's generation and this model's vector count. */
  private loadedKey = '';

  /**
   * Re-reads the chunks (after a scan) and which passages already have vectors; rebuilds the search matrix —
   * only when either changed since the last load. A long-lived host calls this before every recall, and
   * reloading tens of thousands of vectors each time cost tens of ms on the host's thread.
   */
  refresh(): void {
    const gen = this.idx.get("SELECT value FROM meta WHERE key = 'generation'")?.value ?? '0';
    const count = this.idx.get('SELECT COUNT(*) AS n FROM vectors WHERE model = ?', [this.modelId])?.n ?? 0;
    const key = `${gen}:${count}`;
    if (key === this.loadedKey) return;
    this.loadedKey = key;
    const rows = this.idx.all('SELECT c.id, c.doc_id, c.heading, c.text, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.id');
    this.passages = rows.flatMap((r) =>
      passagesOf({ id: Number(r.id), docId: Number(r.doc_id), title: String(r.title), heading: String(r.heading), text: String(r.text) }, this.opts),
    );
    const stored = this.idx.all('SELECT hash, vec FROM vectors WHERE model = ?', [this.modelId]);
    const byHash = new Map(stored.map((r) => [String(r.hash), r.vec as Uint8Array]));
    this.have = new Set(byHash.keys());
    this.pendingCount = undefined;
    const rowsWithVec = this.passages.map((p, i) => [i, byHash.get(p.hash)] as const).filter(([, v]) => v && v.byteLength === this.dim * 4);
    const matrix = new Float32Array(rowsWithVec.length * this.dim);
    this.rowPassage = [];
    rowsWithVec.forEach(([pi, blob], row) => {
      const b = blob!;
      matrix.set(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), row * this.dim);
      this.rowPassage.push(pi);
    });
    this.kernel = new DotKernel(this.dim);
    this.kernel.load(matrix, rowsWithVec.length);
  }

  /** Passages (distinct texts) still waiting for a vector. */
  pendingPassages(): Passage[] {
    const seen = new Set<string>();
    return this.passages.filter((p) => !this.have.has(p.hash) && !seen.has(p.hash) && seen.add(p.hash));
  }

  pending(): number {
    this.pendingCount ??= this.pendingPassages().length;
    return this.pendingCount;
  }

  get size(): { passages: number; embedded: number } {
    return { passages: this.passages.length, embedded: this.rowPassage.length };
  }

  /** Stores vectors for passages (by hash); call refresh() afterwards to make them searchable. */
  put(entries: { hash: string; vector: Float32Array }[]): void {
    if (!entries.length) return;
    this.idx.write(() => {
      const stmt = this.idx.prepare('INSERT OR REPLACE INTO vectors(model, hash, vec) VALUES (?, ?, ?)');
      try {
        for (const e of entries) {
          if (e.vector.length !== this.dim) throw new Error(`vector of ${e.vector.length} dims for a ${this.dim}-dim model`);
          stmt.run([this.modelId, e.hash, toBlob(e.vector)]);
          this.have.add(e.hash);
          this.pendingCount = undefined;
        }
      } finally {
        stmt.finalize();
      }
    });
  }

  /**
   * Embeds what is missing, `batch` passages at a time, until done or `budgetMs` has passed (then the rest
   * stays pending for the next call). Returns how many passages were embedded.
   */
  async embedPending(embed: (texts: string[]) => Promise<Float32Array[]>, opts: { budgetMs?: number; batch?: number } = {}): Promise<number> {
    const start = performance.now();
    const todo = this.pendingPassages();
    const batch = opts.batch ?? 32;
    let done = 0;
    for (let i = 0; i < todo.length; i += batch) {
      if (opts.budgetMs !== undefined && performance.now() - start > opts.budgetMs) break;
      const slice = todo.slice(i, i + batch);
      const vectors = await embed(slice.map((p) => p.text));
      this.put(slice.map((p, j) => ({ hash: p.hash, vector: vectors[j] })));
      done += slice.length;
    }
    if (done) this.refresh();
    return done;
  }

  /** Exact cosine top-`pool` documents (best passage per document). */
  search(query: Float32Array, pool: number): ChannelHit[] {
    const n = this.rowPassage.length;
    const scores = this.kernel.scores(query);
    // Only the best few rows can matter: sort a shortlist, widen it if it holds too few distinct documents.
    for (let want = Math.min(n, pool * 8); ; want = Math.min(n, want * 4)) {
      const hits = this.bestDocs(scores, this.shortlist(scores, want), pool);
      if (hits.length >= pool || want >= n) return hits;
    }
  }

  /** Indices of the `k` highest scores (unordered), by a threshold found with a sampled quantile. */
  private shortlist(scores: Float32Array, k: number): number[] {
    const n = scores.length;
    if (k >= n) return Array.from({ length: n }, (_, i) => i);
    const sample = Array.from({ length: Math.min(n, 2048) }, (_, i) => scores[Math.floor((i * n) / Math.min(n, 2048))]).sort((a, b) => b - a);
    let threshold = sample[Math.min(sample.length - 1, Math.floor((k / n) * sample.length))];
    for (;;) {
      const out: number[] = [];
      for (let i = 0; i < n; i++) if (scores[i] >= threshold) out.push(i);
      if (out.length >= k || threshold === -Infinity) return out;
      threshold = out.length ? threshold - 0.05 : -Infinity; // sample missed: lower the bar and rescan
    }
  }

  private bestDocs(scores: Float32Array, rows: number[], pool: number): ChannelHit[] {
    rows.sort((a, b) => scores[b] - scores[a]);
    const best = new Map<number, ChannelHit>();
    for (const r of rows) {
      const p = this.passages[this.rowPassage[r]];
      if (best.has(p.docId)) continue;
      best.set(p.docId, { docId: p.docId, chunkId: p.chunkId, rank: best.size + 1, score: scores[r] });
      if (best.size >= pool) break;
    }
    return [...best.values()];
  }

  /** Drops vectors no passage of the current index uses (this model), and every vector of other models. */
  prune(): number {
    const live = new Set(this.passages.map((p) => p.hash));
    const stored = this.idx.all('SELECT hash FROM vectors WHERE model = ?', [this.modelId]).map((r) => String(r.hash));
    const dead = stored.filter((h) => !live.has(h));
    return this.idx.write(() => {
      let changes = this.idx.run('DELETE FROM vectors WHERE model != ?', [this.modelId]).changes;
      this.idx.run('DELETE FROM vector_models WHERE model != ?', [this.modelId]);
      for (const h of dead) changes += this.idx.run('DELETE FROM vectors WHERE model = ? AND hash = ?', [this.modelId, h]).changes;
      for (const h of dead) this.have.delete(h);
      return changes;
    });
  }
}
