import type { ParseArgsConfig } from 'node:util';
import type { Readable, Writable } from 'node:stream';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type ParsedValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface CommandArgs {
  values: ParsedValues;
  positionals: string[];
  io: CliIO;
  /** `--vault` or undefined: pass to openProject/locateVault as `vault`. */
  vault?: string;
  json: boolean;
}

/** One `k0maru <name>` sub-command: parse → core use case → text or JSON, returning the exit code. */
export interface Command {
  name: string;
  summary: string;
  /** Usage lines shown by `k0maru <name> --help`, without the leading `k0maru `. */
  usage: string;
  options?: OptionSpec;
  allowPositionals?: boolean;
  run(args: CommandArgs): Promise<number>;
}

/** Exit codes, documented in the README. */
export const EXIT = {
  OK: 0,
  /** A check found problems (guard violations). */
  FINDINGS: 1,
  /** Bad command line or invalid argument. */
  USAGE: 2,
  /** No vault where one was expected. */
  NO_VAULT: 3,
  /** The index stayed locked, or a file could not be read / written. */
  IO: 4,
  /** A bug: please report it (re-run with --debug for the stack trace). */
  INTERNAL: 70,
} as const;

export function writeLine(stream: Writable, text = ''): void {
  stream.write(text.endsWith('\n') ? text : text + '\n');
}

export function writeJson(stream: Writable, value: unknown): void {
  stream.write(JSON.stringify(value, null, 2) + '\n');
}

export function readAll(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    stream.on('data', (d: Buffer | string) => parts.push(typeof d === 'string' ? Buffer.from(d) : d));
    stream.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    stream.on('error', reject);
  });
}
