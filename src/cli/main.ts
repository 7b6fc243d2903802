import { isK0Error, K0Error, toK0Error, type ErrorCode } from '../core/errors';
import { EXIT, writeLine, type CliIO, type Command } from './command';
import { COMMANDS } from './commands/index';
import { VERSION } from '../core/version';
import { closest, closestFlag } from './suggest';
import { resolveUserPath } from '../core/vault/userPath';
import { nodeUtil } from '../core/fsutil/lazyBuiltin';

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

/** A command's usage lines, the first as `Usage: k0maru …` and the others aligned under it. */
function usageLines(cmd: Command): string {
  return cmd.usage
    .split('\n')
    .map((l, i) => `${i ? '       ' : 'Usage: '}k0maru ${l}`)
    .join('\n');
}

/**
 * A command-line mistake: one line with what was wrong, its code and a suggestion, then the usage — on stderr, and
 * as the usual `{error}` object on stdout with --json. Node's parseArgs wording (and its unbalanced quote) stays out.
 */
function usageError(io: CliIO, argv: string[], head: string, message: string, usage: string, hint?: string): number {
  if (argv.includes('--json')) io.stdout.write(JSON.stringify({ error: { code: 'INVALID_ARGUMENT', message } }) + '\n');
  writeLine(io.stderr, `${head}: ${message} [INVALID_ARGUMENT]${hint ? ` — did you mean '${hint}'?` : ''}\n${usage}`);
  return EXIT.USAGE;
}

/** parseArgs' error as our own one-line message, with the closest real flag for an unknown one. */
function describeParseError(err: Error & { code?: string }, optionNames: string[]): { message: string; hint?: string } {
  const m = err.message;
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(m)?.[1] ?? '';
    return { message: `unknown option '${flag}'`, hint: closestFlag(flag, optionNames) };
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(--?[\w-]+)/.exec(m)?.[1] ?? '';
    return { message: /argument missing/.test(m) ? `option '${flag}' needs a value` : `option '${flag}' takes no value` };
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return { message: `unexpected argument '${/'([^']*)'/.exec(m)?.[1] ?? ''}': this command takes options only` };
  return { message: m.split('\n')[0].replace(/\. To specify .*$/, '') };
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
    const names = COMMANDS.map((c) => c.name);
    const flag = name.startsWith('-');
    const hint = flag ? closestFlag(name, [...Object.keys(GLOBAL_OPTIONS), 'version']) : closest(name, names);
    return usageError(io, argv, 'k0maru', `unknown ${flag ? 'option' : 'command'} '${name}'`, `Usage: k0maru <command> [options]   (commands: ${names.join(', ')}; k0maru --help for more)`, hint);
  }
  const cmd = await entry.load();
  let parsed;
  try {
    parsed = nodeUtil().parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) }, allowPositionals: cmd.allowPositionals ?? false, strict: true });
  } catch (err) {
    const { message, hint } = describeParseError(err as Error & { code?: string }, Object.keys({ ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) }));
    return usageError(io, argv, `k0maru ${name}`, message, `${usageLines(cmd)}\nRun 'k0maru ${name} --help' for details.`, hint);
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
      // `--vault C:\work\app`, `..\app` or Git Bash's `/c/work/app`: one absolute path for every command.
      vault: parsed.values.vault === undefined ? undefined : resolveUserPath(String(parsed.values.vault), io.cwd),
      json: !!parsed.values.json,
    });
  } catch (err) {
    const e = toK0Error(err);
    if (parsed.values.json) io.stdout.write(JSON.stringify({ error: { code: e.code, message: e.message, data: e.data } }) + '\n');
    // "inspect needs one node id" under the "k0maru inspect:" prefix would say the command's name twice.
    const message = e.message.startsWith(`${name} `) ? e.message.slice(name.length + 1) : e.message;
    writeLine(io.stderr, `k0maru ${name}: ${message} [${e.code}]`);
    if (e.code === 'INVALID_ARGUMENT' && isK0Error(err) && !parsed.values.json) writeLine(io.stderr, usageLines(cmd));
    if (debug) writeLine(io.stderr, (err as Error).stack ?? String(err));
    else if (!(isK0Error(err))) writeLine(io.stderr, '(re-run with --debug for the stack trace)');
    return EXIT_FOR[e.code] ?? EXIT.INTERNAL;
  }
}
