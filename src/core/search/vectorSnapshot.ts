import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { tempPathFor, writeNewFileSynced } from '../fsutil/atomicWrite';
import { crypto } from '../fsutil/lazyBuiltin';
import { rowBytes } from './dotKernel';

/**
 * A rebuildable cache of one model's vector store, next to the index: the passage → hash map and the vectors, so
 * a fresh process (a one-shot `k0maru recall --mode hybrid`) reads them with one file read instead of splitting and
 * sha1-hashing every passage and reading every blob through the SQLite WASM file layer (2.5 s at 5,000 notes).
 *
 * It is never the truth, only a copy that must prove it is current: its header names the model, dimension and
 * passage layout, the index generation and the model's vector epoch it was taken at, and a random token that is
 * also stored in the index when the file is written. A file whose token the index does not hold (another index,
 * one rebuilt or replaced, a writer that lost a race), whose generation or epoch moved, whose layout or model
 * differs, or whose bytes do not pass the length and CRC checks is ignored and rebuilt from the index.
 *
 * Layout (little-endian): "K0VS", u32 version, u32 header length, u32 offset of the matrix, u32 CRC-32 of the
 * structure; then the header JSON (padded to 4 bytes), passages (u32 chunk id, u32 doc id, u32 hash index each),
 * distinct hashes (20 bytes of sha1 each: first the rows with a vector, in matrix order, then the missing ones;
 * padded to 4), and the matrix to the end of the file in the search kernel's row format (dotKernel.ts: dim int8
 * codes and a float32 scale per row), read straight into the kernel.
 */
export const SNAPSHOT_TABLE_SQL = 'CREATE TABLE IF NOT EXISTS vector_snapshots(model TEXT NOT NULL, layout TEXT NOT NULL, token TEXT NOT NULL, PRIMARY KEY(model, layout)) WITHOUT ROWID;';

const MAGIC = 0x5356304b; // "K0VS"
/** 3: rows as int8 codes + scale (2 held float32 rows: such a file is ignored and rewritten). */
const VERSION = 3;
/** magic, version, header length, where the matrix starts, CRC-32 of everything between this prefix and the matrix. */
const PREFIX = 20;
const HASH_BYTES = 20;
const SHA1_HEX = /^[0-9a-f]{40}$/;

export interface SnapshotKey {
  modelId: string;
  dim: number;
  /** The passage layout (window words and prefix): passages of another layout have other hashes. */
  layout: string;
}

/** What the store was in sync with when the snapshot was taken. */
export interface SnapshotStamp {
  generation: string;
  epoch: number;
  token: string;
}

export interface SnapshotPassage {
  chunkId: number;
  docId: number;
  hash: string;
}

export interface SnapshotData {
  passages: SnapshotPassage[];
  /** Hash of each matrix row, in row order. */
  rowHashes: string[];
  /** Live hashes without a vector. */
  missing: string[];
  /** The rows in the kernel's format (rowBytes(dim) each), in rowHashes' order. */
  matrix: Uint8Array;
}

interface Header extends SnapshotKey, SnapshotStamp {
  passages: number;
  rows: number;
  missing: number;
}

/** Where a model's snapshot lives: beside the index, one file per (model, layout), so two models never share one. */
export function snapshotPath(indexPath: string, key: SnapshotKey): string {
  const slug = key.modelId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60);
  const layout = key.layout.replace(/[^A-Za-z0-9._-]+/g, '_');
  return join(dirname(indexPath), `vectors.${slug}.${layout}.bin`);
}

export const newSnapshotToken = (): string => crypto().randomBytes(8).toString('hex');

const pad4 = (n: number) => (n + 3) & ~3;

/** Encodes a snapshot, or returns undefined when the data cannot be represented (then no file is written). */
export function encodeSnapshot(key: SnapshotKey, stamp: SnapshotStamp, data: SnapshotData): Uint8Array | undefined {
  const hashes = [...data.rowHashes, ...data.missing];
  if (!hashes.every((h) => SHA1_HEX.test(h))) return undefined;
  if (data.matrix.length !== data.rowHashes.length * rowBytes(key.dim)) return undefined;
  const index = new Map(hashes.map((h, i) => [h, i]));
  const header: Header = { ...key, ...stamp, passages: data.passages.length, rows: data.rowHashes.length, missing: data.missing.length };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const headerEnd = pad4(PREFIX + headerBytes.length);
  const passagesEnd = headerEnd + data.passages.length * 12;
  const structEnd = pad4(passagesEnd + hashes.length * HASH_BYTES);
  const buf = Buffer.alloc(structEnd + data.matrix.byteLength);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(VERSION, 4);
  buf.writeUInt32LE(headerBytes.length, 8);
  buf.writeUInt32LE(structEnd, 12);
  headerBytes.copy(buf, PREFIX);
  let off = headerEnd;
  for (const p of data.passages) {
    const at = index.get(p.hash);
    if (at === undefined || !(p.chunkId >= 0 && p.chunkId <= 0xffffffff) || !(p.docId >= 0 && p.docId <= 0xffffffff)) return undefined;
    buf.writeUInt32LE(p.chunkId, off);
    buf.writeUInt32LE(p.docId, off + 4);
    buf.writeUInt32LE(at, off + 8);
    off += 12;
  }
  off = passagesEnd;
  for (const h of hashes) {
    buf.write(h, off, HASH_BYTES, 'hex');
    off += HASH_BYTES;
  }
  buf.writeUInt32LE(crc32(buf.subarray(PREFIX, structEnd)), 16);
  Buffer.from(data.matrix.buffer, data.matrix.byteOffset, data.matrix.byteLength).copy(buf, structEnd);
  return buf;
}

/** Per matrix row, the passages that use its vector (rows × passages as offsets into two flat arrays). */
export interface RowPassages {
  /** Row r's passages are at [start[r], start[r + 1]) of docId / chunkId, in passage order. */
  start: Uint32Array;
  docId: Uint32Array;
  chunkId: Uint32Array;
  /** Passages with a vector (the rest wait for one). */
  embedded: number;
}

/** A snapshot whose structure passed its checks; the matrix is read on demand, straight into its destination. */
export interface OpenedSnapshot {
  rows: number;
  passages: number;
  missing: number;
  /** What a search needs, without a string or an object per passage (a one-shot recall needs nothing more). */
  rowPassages(): RowPassages;
  /** Everything, as the store's maps want it (hashes as hex strings). */
  decode(): { passages: SnapshotPassage[]; rowHashes: string[]; missing: string[] };
  /** Reads the rows (kernel format) into `target`; false when the file came up short. */
  readMatrix(target: Uint8Array): boolean;
  close(): void;
}

/**
 * Opens a snapshot file if it is taken for exactly this key and stamp and its structure is intact (magic, version,
 * exact length, CRC-32 of the header, passages and hashes); undefined otherwise — missing, truncated, corrupt,
 * another model or layout, stale. Never throws for a bad file. The matrix is not checksummed (it is the bulk of
 * the file, and a checksum over it cost 20 ms idle, 100 ms under load at 5,000 notes): the file is only ever put in
 * place by a rename, and its exact length is checked.
 */
export function openSnapshot(path: string, key: SnapshotKey, stamp: SnapshotStamp): OpenedSnapshot | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const prefix = Buffer.alloc(PREFIX);
    if (size < PREFIX || readSync(fd, prefix, 0, PREFIX, 0) !== PREFIX) return shut(fd);
    if (prefix.readUInt32LE(0) !== MAGIC || prefix.readUInt32LE(4) !== VERSION) return shut(fd);
    const headerLen = prefix.readUInt32LE(8);
    const structEnd = prefix.readUInt32LE(12);
    if (structEnd > size || PREFIX + headerLen > structEnd) return shut(fd);
    const struct = Buffer.alloc(structEnd - PREFIX);
    if (readSync(fd, struct, 0, struct.length, PREFIX) !== struct.length) return shut(fd);
    if (crc32(struct) !== prefix.readUInt32LE(16)) return shut(fd);
    const h = JSON.parse(struct.toString('utf8', 0, headerLen)) as Partial<Header>;
    if (h.modelId !== key.modelId || h.dim !== key.dim || h.layout !== key.layout) return shut(fd);
    if (h.generation !== stamp.generation || h.epoch !== stamp.epoch || h.token !== stamp.token) return shut(fd);
    const [np, nr, nm] = [h.passages, h.rows, h.missing];
    if (![np, nr, nm].every((n) => Number.isSafeInteger(n) && n! >= 0)) return shut(fd);
    const rows = nr!;
    const count = np!;
    const hashes = nr! + nm!;
    const headerEnd = pad4(PREFIX + headerLen) - PREFIX;
    const passagesEnd = headerEnd + count * 12;
    if (pad4(PREFIX + passagesEnd + hashes * HASH_BYTES) !== structEnd || size !== structEnd + rows * rowBytes(key.dim)) return shut(fd);
    const at = (i: number) => struct.readUInt32LE(headerEnd + i * 12 + 8);
    for (let i = 0; i < count; i++) if (at(i) >= hashes) return shut(fd);
    const file = fd;
    fd = undefined;
    return {
      rows,
      passages: count,
      missing: nm!,
      rowPassages(): RowPassages {
        const start = new Uint32Array(rows + 1);
        let embedded = 0;
        for (let i = 0; i < count; i++) {
          const r = at(i);
          if (r < rows) (start[r + 1]++, embedded++);
        }
        for (let r = 0; r < rows; r++) start[r + 1] += start[r];
        const next = start.slice(0, rows);
        const docId = new Uint32Array(embedded);
        const chunkId = new Uint32Array(embedded);
        for (let i = 0, off = headerEnd; i < count; i++, off += 12) {
          const r = struct.readUInt32LE(off + 8);
          if (r >= rows) continue;
          const k = next[r]++;
          chunkId[k] = struct.readUInt32LE(off);
          docId[k] = struct.readUInt32LE(off + 4);
        }
        return { start, docId, chunkId, embedded };
      },
      decode() {
        const hex: string[] = new Array(hashes);
        for (let i = 0, off = passagesEnd; i < hashes; i++, off += HASH_BYTES) hex[i] = struct.toString('hex', off, off + HASH_BYTES);
        const passages: SnapshotPassage[] = new Array(count);
        for (let i = 0, off = headerEnd; i < count; i++, off += 12) passages[i] = { chunkId: struct.readUInt32LE(off), docId: struct.readUInt32LE(off + 4), hash: hex[struct.readUInt32LE(off + 8)] };
        return { passages, rowHashes: hex.slice(0, rows), missing: hex.slice(rows) };
      },
      readMatrix(bytes: Uint8Array): boolean {
        for (let got = 0; got < bytes.length; ) {
          const n = readSync(file, bytes, got, bytes.length - got, structEnd + got);
          if (n <= 0) return false;
          got += n;
        }
        return true;
      },
      close: () => closeSync(file),
    };
  } catch {
    if (fd !== undefined) shut(fd);
    return undefined;
  }
}

function shut(fd: number): undefined {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
  return undefined;
}

/**
 * Puts the bytes in place atomically (a temp file renamed over the target): a reader sees the old file or the new
 * one, never half of either; two writers at once leave one of their files, whose token at most one index row
 * matches. No fsync: a cache lost in a crash is rebuilt, and a torn file fails its checks.
 */
export function writeSnapshotFile(path: string, bytes: Uint8Array): void {
  const tmp = tempPathFor(path);
  try {
    writeNewFileSynced(tmp, bytes, false);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
