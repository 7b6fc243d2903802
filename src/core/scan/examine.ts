import type { ParsedNote } from '../vault/markdown';
import { readRegularFile } from '../vault/regularFile';
import { prepareDocument, type PreparedDocument } from '../index/prepare';

/** One file whose stat moved since the index saw it: read, hashed and, when its bytes changed, parsed. */
export interface FileJob {
  abs: string;
  /** Path relative to the notes root ('/' separators): what the index keys documents by. */
  rel: string;
  /** The indexed content hash, when the index has the file. */
  prevHash?: string;
  /** Bytes to read at most (the size limit + 1, so an oversized file is still seen as one). */
  readLimit: number;
}

export interface FileWarning {
  line: number;
  message: string;
}

/** What a file turned out to be. Plain data: a parse worker posts these back to the scanning thread. */
export type FileOutcome =
  | { kind: 'unreadable'; reason: string }
  | { kind: 'binary' }
  | { kind: 'touch'; hash: string }
  | { kind: 'upsert'; hash: string; doc: PreparedDocument; warnings: FileWarning[] };

export interface ExamineTools {
  hash: (data: Uint8Array | string) => string;
  parseNote: (text: string, rel: string) => ParsedNote;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Lenient = new TextDecoder('utf-8');

/** The scanner's third tier for one file; the same functions run in the scanning thread and in the parse worker. */
export function examineFile(job: FileJob, tools: ExamineTools): FileOutcome {
  const read = readFileJob(job, tools.hash);
  return read.kind === 'parse' ? parseFileJob(job, read.bytes, read.hash, tools) : read;
}

/**
 * Reads and hashes the file: what it is when that settles it, else its bytes to parse. Apart so the scanning
 * thread loads the parser only once a file's content really changed (a touch costs a read and a hash).
 */
export function readFileJob(job: FileJob, hash: ExamineTools['hash']): FileOutcome | { kind: 'parse'; bytes: Buffer; hash: string } {
  let bytes: Buffer;
  try {
    // Never blocks: a FIFO swapped in after the walk is refused by fstat, not read.
    bytes = readRegularFile(job.abs, job.readLimit);
  } catch (err) {
    return { kind: 'unreadable', reason: `unreadable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (bytes.subarray(0, 8192).includes(0)) return { kind: 'binary' };
  const digest = hash(bytes);
  return job.prevHash === digest ? { kind: 'touch', hash: digest } : { kind: 'parse', bytes, hash: digest };
}

export function parseFileJob(job: FileJob, bytes: Buffer, hash: string, tools: ExamineTools): FileOutcome {
  const warnings: FileWarning[] = [];
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = utf8Lenient.decode(bytes);
    warnings.push({ line: 1, message: 'invalid UTF-8 (undecodable bytes replaced with U+FFFD)' });
  }
  const note = tools.parseNote(text, job.rel);
  if (note.frontmatterError) {
    const { line, message } = note.frontmatterError;
    warnings.push({ line, message: `invalid frontmatter, indexed as body text (${message})` });
  }
  const stored = warnings.map((w) => `${w.line}: ${w.message}`);
  return { kind: 'upsert', hash, doc: prepareDocument(job.rel, note, stored, tools.hash), warnings };
}
