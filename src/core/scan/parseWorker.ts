// Entry of the parse worker thread (bundled to dist/parseWorker.js): reads, hashes, parses and chunks the files
// of a large scan while the scanning thread writes the previous ones to SQLite (src/core/scan/parsePool.ts).
import { parentPort } from 'node:worker_threads';
import { parseNote } from '../vault/markdown';
import { examineFile } from './examine';
import { loadHasher } from './hash';
import type { ParseReply, ParseRequest } from './parseProtocol';

const port = parentPort;
if (!port) throw new Error('parseWorker.ts runs as a worker thread only');
const hasher = loadHasher();

// Requests are answered in the order they came: each waits on the same hasher promise, and promise callbacks run
// in the order they were attached.
port.on('message', async (req: ParseRequest) => {
  let reply: ParseReply;
  try {
    const hash = await hasher;
    reply = { id: req.id, outcomes: req.jobs.map((job) => examineFile(job, { hash, parseNote })) };
  } catch (err) {
    reply = { id: req.id, error: (err as Error).message ?? String(err) };
  }
  port.postMessage(reply);
});
