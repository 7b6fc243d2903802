import type { FileJob, FileOutcome } from './examine';

/** Scanning thread → parse worker: examine these files, in order. */
export interface ParseRequest {
  id: number;
  jobs: FileJob[];
}

/** Parse worker → scanning thread: one outcome per job, in the jobs' order, or why none could be given. */
export type ParseReply = { id: number; outcomes: FileOutcome[] } | { id: number; error: string };
