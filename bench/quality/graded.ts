import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
