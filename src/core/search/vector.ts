import { statSync, type BigIntStats } from 'node:fs';
import type { IndexDb } from '../index/db';
import type { ChannelHit } from './bm25';
import { DotKernel, rowBytes } from './dotKernel';
import { DEFAULT_PASSAGES, passagesOf, type Passage, type PassageOptions } from './passages';
import { encodeSnapshot, newSnapshotToken, openSnapshot, SNAPSHOT_TABLE_SQL, snapshotPath, writeSnapshotFile, type OpenedSnapshot, type RowPassages, type SnapshotKey } from './vectorSnapshot';

// The passage split lives in passages.ts; its names stay importable from here for the store's callers.
export { DEFAULT_PASSAGES, passagesOf, type Passage, type PassageOptions };

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

function statOrUndefined(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

function toBlob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

/** Per-model write counter, bumped in the transaction of every put: one row to read instead of a COUNT(*) per call. */
const EPOCH_SQL = 'CREATE TABLE IF NOT EXISTS vector_epoch(model TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;';
/** Hashes per `IN (…)` lookup of stored vectors: bounded statements, and at most ~1 MB of blobs in flight. */
const LOOKUP_BATCH = 400;
/** Above this many missing vectors, this model's rows are read in pages of SCAN_PAGE instead of looked up by hash. */
const SCAN_ABOVE = 1000;
const SCAN_PAGE = 2000;

/** What a chunk's passages are derived from: a chunk whose key is unchanged is not split or hashed again. */
const chunkKey = (r: Record<string, unknown>) => `${r.doc_id}\0${r.hash}\0${r.title}\0${r.heading}`;

/**
 * The vector channel's store and brute-force search for one model. Search is cosine over an in-memory matrix of
 * int8 vectors with a scale per row (vectors are normalised, so cosine is a dot product; the index keeps them as
 * float32), scored with WASM SIMD (dotKernel.ts):
 * O(passages × dimension) per query, ~3 ms for 30,000 passages of 512 dims. See docs/embeddings.md for when an
 * ANN index would pay off.
 *
 * Bookkeeping is incremental, because a long-lived host refreshes before every recall and after every batch of
 * a background fill: the matrix (in the kernel's WASM memory, the only copy of the vectors in memory: dim + 4
 * bytes per distinct passage) only grows by the rows a put or another process added; chunks are re-split and re-hashed only
 * when the scanner changed them; "did anyone write vectors?" is one row (vector_epoch), not a COUNT(*).
 */
export class VectorStore {
  private passages: Passage[] = [];
  /** Passage hash → indices into `passages` (one text may appear in several notes). */
  private byHash = new Map<string, number[]>();
  /** Chunk id → the passages derived from it, with what they were derived from. */
  private chunkCache = new Map<number, { key: string; passages: Passage[] }>();
  private kernel: DotKernel;
  /** Kernel row → passage hash, and back. Rows whose hash no passage uses any more are dead until compaction. */
  private rowHash: string[] = [];
  private rowOf = new Map<string, number>();
  /** Live hashes without a vector, in passage order. */
  private missing = new Set<string>();
  private embeddedPassages = 0;
  private loadedGen: string | undefined;
  private epoch = -1;
  /** The index file's stamp at the last refresh (IndexDb.fileStamp). */
  private stamp = '';
  /**
   * Loaded from a snapshot (vectorSnapshot.ts): passages carry no text and no chunk is cached, so the first
   * pendingPassages() or generation change re-reads the chunks the way a fresh store does.
   */
  private seeded = false;
  /** A snapshot read for searching only (see loadSnapshot); undefined once materialized or when none was read. */
  private lazy: (RowPassages & { rows: number; passages: number; missing: number; decode: OpenedSnapshot['decode'] }) | undefined;
  /** The (generation, epoch) the snapshot file on disk is known to hold: nothing to write while it still does. */
  private snapshotAt: string | undefined;

  constructor(
    private readonly idx: IndexDb,
    readonly modelId: string,
    readonly dim: number,
    readonly opts: PassageOptions = DEFAULT_PASSAGES,
    /** `snapshot`: read (and let saveSnapshot() write) the store's cache file beside the index. */
    private readonly cache: { snapshot?: boolean } = {},
  ) {
    this.kernel = new DotKernel(dim);
    this.kernel.load(new Float32Array(0), 0);
    // Known model and dimension: nothing to write (a one-shot process opens the store on every hybrid recall, and a
    // write transaction is a lock and an fsync).
    if (!this.knownWithDim()) idx.write(() => {
      idx.exec(VECTOR_SCHEMA_SQL + EPOCH_SQL);
      const known = idx.get('SELECT dim FROM vector_models WHERE model = ?', [modelId]);
      if (known && Number(known.dim) !== dim) idx.run('DELETE FROM vectors WHERE model = ?', [modelId]);
      idx.run('INSERT OR REPLACE INTO vector_models(model, dim) VALUES (?, ?)', [modelId, dim]);
    });
    this.refresh();
  }

  private knownWithDim(): boolean {
    try {
      return Number(this.idx.get('SELECT dim FROM vector_models WHERE model = ?', [this.modelId])?.dim) === this.dim && !!this.idx.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'vector_epoch'");
    } catch (err) {
      if (/no such table/i.test(String((err as Error).message))) return false;
      throw err;
    }
  }

  /**
   * Follows the scanner (re-reads the chunks when the index generation moved, splitting only changed ones) and
   * other writers of this model's vectors (loads the missing ones when the epoch moved). Two single-row reads
   * when nothing changed, which is the common case: a host calls this before every recall.
   */
  refresh(): void {
    // The index file untouched since the last refresh (inode, mtime in ns, size): nobody wrote, so neither the
    // generation nor the epoch moved — a stat instead of two queries and their lock round trips (a long-lived
    // host refreshes before every hybrid call). Taken before the reads: a write during them changes it again.
    // File times are coarse (a kernel tick): a stamp younger than a second may hide a same-size write made in the
    // same tick, so it is trusted only once the file has been left alone that long.
    const st = statOrUndefined(this.idx.path);
    const stamp = st ? `${st.ino}:${st.mtimeNs}:${st.size}` : '';
    if (stamp && stamp === this.stamp && Date.now() - Number(st!.mtimeMs) > 1000) return;
    this.stamp = stamp;
    const gen = String(this.idx.get("SELECT value FROM meta WHERE key = 'generation'")?.value ?? '0');
    const epoch = this.readEpoch();
    let look = false;
    if (this.loadedGen === undefined && this.cache.snapshot && this.loadSnapshot(gen, epoch)) {
      this.loadedGen = gen;
      this.epoch = epoch;
      return;
    }
    if (gen !== this.loadedGen) {
      if (this.seeded) this.unseed();
      this.loadPassages();
      this.loadedGen = gen;
      look = true;
    }
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      look = true;
    }
    if (look) {
      this.materialize();
      this.loadMissingVectors();
    }
  }

  private readEpoch(): number {
    try {
      return Number(this.idx.get('SELECT n FROM vector_epoch WHERE model = ?', [this.modelId])?.n ?? 0);
    } catch (err) {
      // A healed index (moved aside, rebuilt by the scanner) has no vector tables yet.
      if (!/no such table/i.test(String((err as Error).message))) throw err;
      this.idx.write(() => this.idx.exec(VECTOR_SCHEMA_SQL + EPOCH_SQL));
      return 0;
    }
  }

  private loadPassages(): void {
    const rows = this.idx.all('SELECT c.id, c.doc_id, c.hash, c.heading, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.id');
    const stale = rows.filter((r) => this.chunkCache.get(Number(r.id))?.key !== chunkKey(r));
    const texts = new Map<number, string>();
    if (stale.length > rows.length / 2) {
      for (const t of this.idx.all('SELECT id, text FROM chunks')) texts.set(Number(t.id), String(t.text));
    } else {
      for (let i = 0; i < stale.length; i += LOOKUP_BATCH) {
        const ids = stale.slice(i, i + LOOKUP_BATCH).map((r) => Number(r.id));
        for (const t of this.idx.all(`SELECT id, text FROM chunks WHERE id IN (${ids.map(() => '?').join(',')})`, ids)) texts.set(Number(t.id), String(t.text));
      }
    }
    const cache = new Map<number, { key: string; passages: Passage[] }>();
    const passages: Passage[] = [];
    for (const r of rows) {
      const id = Number(r.id);
      const key = chunkKey(r);
      let entry = this.chunkCache.get(id);
      if (entry?.key !== key) {
        const text = texts.get(id);
        if (text === undefined) continue; // deleted between the two reads: the next generation has it right
        entry = { key, passages: passagesOf({ id, docId: Number(r.doc_id), title: String(r.title), heading: String(r.heading), text }, this.opts) };
      }
      cache.set(id, entry);
      for (const p of entry.passages) passages.push(p);
    }
    this.chunkCache = cache;
    this.passages = passages;
    this.byHash = new Map();
    passages.forEach((p, i) => {
      const at = this.byHash.get(p.hash);
      if (at) at.push(i);
      else this.byHash.set(p.hash, [i]);
    });
    this.missing = new Set();
    this.embeddedPassages = 0;
    for (const [hash, at] of this.byHash) {
      if (this.rowOf.has(hash)) this.embeddedPassages += at.length;
      else this.missing.add(hash);
    }
    const dead = this.rowHash.length - (this.byHash.size - this.missing.size);
    if (dead > Math.max(256, this.rowHash.length / 2)) this.compact();
  }

  /** Rebuilds the matrix from the rows some passage still uses (edits leave dead rows behind). */
  private compact(): void {
    const live = this.rowHash.map((h, r) => [h, r] as const).filter(([h]) => this.byHash.has(h));
    const kernel = new DotKernel(this.dim);
    kernel.loadWith(live.length, (target) => this.copyRows(live.map(([, r]) => r), target));
    this.kernel = kernel;
    this.rowHash = live.map(([h]) => h);
    this.rowOf = new Map(this.rowHash.map((h, i) => [h, i]));
  }

  /** Copies the kernel's rows `rows`, in the stored format, one after the other into `target`. */
  private copyRows(rows: number[], target: Uint8Array): void {
    const stride = rowBytes(this.dim);
    rows.forEach((r, i) => target.set(this.kernel.rowBytes(r), i * stride));
  }

  /** Reads the stored vectors of passages that have none in memory yet (another host's, or an earlier run's). */
  private loadMissingVectors(): void {
    if (this.missing.size > SCAN_ABOVE) {
      // Most are missing (a fresh process): walk this model's rows in key order, a page at a time, instead of
      // thousands of lookups (3–4× faster here) and without holding every blob at once.
      for (let after = ''; ; ) {
        const rows = this.idx.all('SELECT hash, vec FROM vectors WHERE model = ? AND hash > ? ORDER BY hash LIMIT ?', [this.modelId, after, SCAN_PAGE]);
        this.addRows(rows.map((r) => ({ hash: String(r.hash), blob: r.vec as Uint8Array })));
        if (rows.length < SCAN_PAGE) return;
        after = String(rows[rows.length - 1].hash);
      }
    }
    const want = [...this.missing];
    for (let i = 0; i < want.length; i += LOOKUP_BATCH) {
      const hashes = want.slice(i, i + LOOKUP_BATCH);
      const rows = this.idx.all(`SELECT hash, vec FROM vectors WHERE model = ? AND hash IN (${hashes.map(() => '?').join(',')})`, [this.modelId, ...hashes]);
      this.addRows(rows.map((r) => ({ hash: String(r.hash), blob: r.vec as Uint8Array })));
    }
  }

  /** Appends vectors to the matrix (only for live passages that have none: nothing is held twice). */
  private addRows(entries: { hash: string; blob?: Uint8Array; vector?: Float32Array }[]): void {
    const seen = new Set<string>();
    const fresh = entries.filter((e) => this.missing.has(e.hash) && !seen.has(e.hash) && !!seen.add(e.hash) && (e.vector ? e.vector.length === this.dim : e.blob!.byteLength === this.dim * 4));
    if (!fresh.length) return;
    const block = new Float32Array(fresh.length * this.dim);
    const bytes = new Uint8Array(block.buffer);
    fresh.forEach((e, i) => {
      // Blobs are copied byte-wise into place: no Float32Array per row, and no alignment needed.
      if (e.vector) block.set(e.vector, i * this.dim);
      else bytes.set(e.blob!, i * this.dim * 4);
    });
    this.kernel.append(block, fresh.length);
    for (const e of fresh) {
      this.rowOf.set(e.hash, this.rowHash.length);
      this.rowHash.push(e.hash);
      this.missing.delete(e.hash);
      this.embeddedPassages += this.byHash.get(e.hash)?.length ?? 0;
    }
  }

  /** Where the store's current state was first read from: its snapshot file, or the index (also after a reload). */
  get loadedFrom(): 'snapshot' | 'index' {
    return this.seeded ? 'snapshot' : 'index';
  }

  private get snapshotKey(): SnapshotKey {
    return { modelId: this.modelId, dim: this.dim, layout: `${this.opts.windowWords}w-${this.opts.prefix}` };
  }

  private snapshotToken(key: SnapshotKey): string | undefined {
    try {
      const v = this.idx.get('SELECT token FROM vector_snapshots WHERE model = ? AND layout = ?', [key.modelId, key.layout])?.token;
      return v === undefined || v === null ? undefined : String(v);
    } catch (err) {
      if (/no such table/i.test(String((err as Error).message))) return undefined;
      throw err;
    }
  }

  /** Seeds the store from its snapshot file when the index vouches for it (same token, generation and epoch). */
  private loadSnapshot(generation: string, epoch: number): boolean {
    const key = this.snapshotKey;
    const token = this.snapshotToken(key);
    if (!token) return false;
    const snap = openSnapshot(snapshotPath(this.idx.path, key), key, { generation, epoch, token });
    if (!snap) return false;
    const kernel = new DotKernel(this.dim);
    let read = false;
    try {
      kernel.loadWith(snap.rows, (target) => (read = snap.readMatrix(target)));
    } finally {
      snap.close();
    }
    if (!read) return false;
    this.kernel = kernel;
    // Searching needs only which documents each row belongs to; the maps (and a hex string per hash) are built
    // the first time anything else is asked of the store (materialize()).
    this.lazy = { ...snap.rowPassages(), rows: snap.rows, passages: snap.passages, missing: snap.missing, decode: () => snap.decode() };
    this.chunkCache = new Map();
    this.seeded = true;
    this.snapshotAt = `${generation}/${epoch}`;
    return true;
  }

  /** Turns a lazily read snapshot into the store's maps (passages still without text: see unseed()). */
  private materialize(): void {
    const lazy = this.lazy;
    if (!lazy) return;
    this.lazy = undefined;
    const snap = lazy.decode();
    const passages = snap.passages as Passage[];
    const byHash = new Map<string, number[]>();
    for (let i = 0; i < passages.length; i++) {
      const p = passages[i];
      p.text = '';
      const at = byHash.get(p.hash);
      if (at) at.push(i);
      else byHash.set(p.hash, [i]);
    }
    this.passages = passages;
    this.byHash = byHash;
    this.rowHash = snap.rowHashes;
    this.rowOf = new Map(snap.rowHashes.map((h, i) => [h, i]));
    this.missing = new Set(snap.missing);
    this.embeddedPassages = lazy.embedded;
  }

  /** Gives the passages of a snapshot-seeded store their texts back (a full re-read of the chunks). */
  private unseed(): void {
    this.materialize();
    this.seeded = false;
    this.chunkCache = new Map();
  }

  /**
   * Writes the store's snapshot file (when enabled and the file does not already hold this state), so the next
   * fresh process reads it at once. Best effort: a busy index or a full disk only means the next process reads
   * the index instead. Returns whether a file was written.
   */
  saveSnapshot(): boolean {
    if (!this.cache.snapshot || this.loadedGen === undefined) return false;
    const at = `${this.loadedGen}/${this.epoch}`;
    if (at === this.snapshotAt) return false;
    try {
      this.materialize();
      // Only rows some passage uses (edits leave dead rows in the matrix until compaction).
      const live = this.rowHash.map((h, r) => [h, r] as const).filter(([h]) => this.byHash.has(h));
      const matrix = new Uint8Array(live.length * rowBytes(this.dim));
      this.copyRows(live.map(([, r]) => r), matrix);
      const key = this.snapshotKey;
      const token = newSnapshotToken();
      const bytes = encodeSnapshot(key, { generation: this.loadedGen, epoch: this.epoch, token }, { passages: this.passages, rowHashes: live.map(([h]) => h), missing: [...this.missing], matrix });
      if (!bytes) return false;
      const path = snapshotPath(this.idx.path, key);
      writeSnapshotFile(path, bytes);
      // The index vouches for the file last: a reader between the two sees a token mismatch and reads the index.
      this.idx.write(() => {
        this.idx.exec(SNAPSHOT_TABLE_SQL);
        this.idx.run('INSERT OR REPLACE INTO vector_snapshots(model, layout, token) VALUES (?, ?, ?)', [key.modelId, key.layout, token]);
      });
      this.snapshotAt = at;
      return true;
    } catch {
      return false;
    }
  }

  /** Passages (distinct texts) still waiting for a vector. */
  pendingPassages(): Passage[] {
    if (this.seeded) {
      this.unseed();
      this.loadPassages();
    }
    return [...this.missing].map((h) => this.passages[this.byHash.get(h)![0]]);
  }

  pending(): number {
    return this.lazy ? this.lazy.missing : this.missing.size;
  }

  get size(): { passages: number; embedded: number } {
    if (this.lazy) return { passages: this.lazy.passages, embedded: this.lazy.embedded };
    return { passages: this.passages.length, embedded: this.embeddedPassages };
  }

  /** Stores vectors for passages (by hash); they are searchable at once (no refresh needed). */
  put(entries: { hash: string; vector: Float32Array }[]): void {
    if (!entries.length) return;
    this.materialize();
    const n = this.idx.write(() => {
      const stmt = this.idx.prepare('INSERT OR REPLACE INTO vectors(model, hash, vec) VALUES (?, ?, ?)');
      try {
        for (const e of entries) {
          if (e.vector.length !== this.dim) throw new Error(`vector of ${e.vector.length} dims for a ${this.dim}-dim model`);
          stmt.run([this.modelId, e.hash, toBlob(e.vector)]);
        }
      } finally {
        stmt.finalize();
      }
      this.idx.run('INSERT INTO vector_epoch(model, n) VALUES (?, 1) ON CONFLICT(model) DO UPDATE SET n = n + 1', [this.modelId]);
      return Number(this.idx.get('SELECT n FROM vector_epoch WHERE model = ?', [this.modelId])?.n ?? 0);
    });
    // In step unless another process wrote meanwhile: then the next refresh() loads what it added.
    if (n === this.epoch + 1) this.epoch = n;
    this.addRows(entries);
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
    return done;
  }

  /** Exact cosine top-`pool` documents (best passage per document). */
  search(query: Float32Array, pool: number): ChannelHit[] {
    const n = this.lazy ? this.lazy.rows : this.rowHash.length;
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
    const lazy = this.lazy;
    if (lazy) {
      // The same walk over a lazily read snapshot: row r's passages, in passage order.
      for (const r of rows) {
        for (let k = lazy.start[r]; k < lazy.start[r + 1]; k++) {
          const docId = lazy.docId[k];
          if (best.has(docId)) continue;
          best.set(docId, { docId, chunkId: lazy.chunkId[k], rank: best.size + 1, score: scores[r] });
          if (best.size >= pool) return [...best.values()];
        }
      }
      return [...best.values()];
    }
    for (const r of rows) {
      for (const pi of this.byHash.get(this.rowHash[r]) ?? []) {
        const p = this.passages[pi];
        if (best.has(p.docId)) continue;
        best.set(p.docId, { docId: p.docId, chunkId: p.chunkId, rank: best.size + 1, score: scores[r] });
        if (best.size >= pool) return [...best.values()];
      }
    }
    return [...best.values()];
  }

  /** Drops vectors no passage of the current index uses (this model), and every vector of other models. */
  prune(): number {
    this.materialize();
    const live = this.byHash;
    const stored = this.idx.all('SELECT hash FROM vectors WHERE model = ?', [this.modelId]).map((r) => String(r.hash));
    const dead = stored.filter((h) => !live.has(h));
    return this.idx.write(() => {
      let changes = this.idx.run('DELETE FROM vectors WHERE model != ?', [this.modelId]).changes;
      this.idx.run('DELETE FROM vector_models WHERE model != ?', [this.modelId]);
      for (const h of dead) changes += this.idx.run('DELETE FROM vectors WHERE model = ? AND hash = ?', [this.modelId, h]).changes;
      // Deleted rows may sit in snapshot files (this model's or another's): none of them is vouched for any more.
      this.idx.exec(SNAPSHOT_TABLE_SQL);
      this.idx.run('DELETE FROM vector_snapshots');
      this.idx.run('INSERT INTO vector_epoch(model, n) VALUES (?, 1) ON CONFLICT(model) DO UPDATE SET n = n + 1', [this.modelId]);
      return changes;
    });
  }
}
