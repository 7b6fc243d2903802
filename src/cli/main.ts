import { parseArgs } from 'node:util';
import { isK0Error, K0Error, toK0Error, type ErrorCode } from '../core/errors';
import { EXIT, writeLine, type CliIO, type Command } from './command';
import { COMMANDS } from './commands/index';
import { VERSION } from '../core/version';

const GLOBAL_OPTIONS = {
  vault: { type: 'string' },
  json: { type: 'boolean' },
  debug: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const EXIT_FOR: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: EXIT.USAGE,
  PATH_OUTSIDE_VAULT: EXIT.USAGE,
  NOTE_NOT_FOUND: EXIT.USAGE,
  NODE_NOT_FOUND: EXIT.USAGE,
  FILE_TOO_LARGE: EXIT.USAGE,
  RULE_INVALID: EXIT.USAGE,
  VAULT_NOT_FOUND: EXIT.NO_VAULT,
  NOT_A_GIT_REPO: EXIT.USAGE,
  INDEX_BUSY: EXIT.IO,
  INDEX_CORRUPT: EXIT.IO,
  IO_ERROR: EXIT.IO,
  WRITE_CONFLICT: EXIT.IO,
  GIT_FAILED: EXIT.IO,
  MODEL_UNAVAILABLE: EXIT.IO,
};

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `k0maru ${VERSION} — long-term project memory and Living ADR guardrails for coding agents`,
    '',
    'Usage: k0maru <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Global options: --vault PATH (project root holding .k0maru/), --json, --debug, --help, --version',
    'Exit codes: 0 ok · 1 findings (guard violations) · 2 usage/invalid argument · 3 no vault · 4 index busy or I/O error · 70 internal error',
  ].join('\n');
}

function commandHelp(cmd: Command): string {
  return `${cmd.summary}\n\nUsage:\n${cmd.usage
    .split('\n')
    .map((l) => `  k0maru ${l}`)
    .join('\n')}\n\nGlobal options: --vault PATH, --json, --debug`;
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const debug = argv.includes('--debug');
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    writeLine(io.stdout, helpText());
    return name ? EXIT.OK : EXIT.USAGE;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    writeLine(io.stdout, VERSION);
    return EXIT.OK;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    writeLine(io.stderr, `k0maru: unknown command '${name}'. Run 'k0maru --help' for the list.`);
    return EXIT.USAGE;
  }
  const cmd = await entry.load();
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) }, allowPositionals: cmd.allowPositionals ?? false, strict: true });
  } catch (err) {
    writeLine(io.stderr, `k0maru ${name}: ${(err as Error).message.split('\n')[0]}\n${commandHelp(cmd)}`);
    return EXIT.USAGE;
  }
  if (parsed.values.help) {
    writeLine(io.stdout, commandHelp(cmd));
    return EXIT.OK;
  }
  try {
    return await cmd.run({
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
      io,
      vault: parsed.values.vault as string | undefined,
      json: !!parsed.values.json,
    });
  } catch (err) {
    const e = toK0Error(err);
    if (parsed.values.json) io.stdout.write(JSON.stringify({ error: { code: e.code, message: e.message, data: e.data } }) + '\n');
    writeLine(io.stderr, `k0maru ${name}: ${e.message} [${e.code}]`);
    if (debug) writeLine(io.stderr, (err as Error).stack ?? String(err));
    else if (!(isK0Error(err))) writeLine(io.stderr, '(re-run with --debug for the stack trace)');
    return EXIT_FOR[e.code] ?? EXIT.INTERNAL;
  }
}
