import { resolve } from 'node:path';

/**
 * A small committed shell script (`.k0maru/bin/<name>`) that finds k0maru the same way on every machine and in a
 * fresh checkout — `$K0MARU_BIN`, the project's `node_modules/.bin/k0maru`, the CLI recorded at install time
 * (skipped when that path no longer exists), then `k0maru` on PATH — and runs one sub-command with the project
 * root derived from the script's own location, so it works whatever the caller's working directory is.
 */
export function launcherScript(opts: { command: string; subcommand: string; passVault: boolean; whenMissing: string }): string {
  const tail = `${opts.subcommand}${opts.passVault ? ' --vault "$root"' : ''} "$@"`;
  const recorded = opts.command === 'k0maru' ? '' : `if ${fileTest(opts.command)}; then exec ${opts.command} ${tail}; fi\n`;
  return `#!/bin/sh
# Written by k0maru. Finds k0maru on any machine and in a fresh checkout: $K0MARU_BIN, the project's
# node_modules, the CLI recorded at install time, then k0maru on PATH.
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ -n "$K0MARU_BIN" ]; then exec $K0MARU_BIN ${tail}; fi
if [ -x "$root/node_modules/.bin/k0maru" ]; then exec "$root/node_modules/.bin/k0maru" ${tail}; fi
${recorded}if command -v k0maru >/dev/null 2>&1; then exec k0maru ${tail}; fi
${opts.whenMissing}
`;
}

/** `[ -f "/abs/cli.mjs" ]` for a `"node" "/abs/cli.mjs"` command, so a stale absolute path falls through. */
function fileTest(command: string): string {
  const parts = command.match(/"[^"]*"|\S+/g) ?? [];
  const last = parts[parts.length - 1] ?? '';
  return `[ -f ${last.startsWith('"') ? last : `"${last}"`} ]`;
}

/** How this very process runs k0maru (`"node" "/abs/dist/cli.mjs"`), or plain `k0maru` when that is unknown. */
export function currentCliCommand(argv1 = process.argv[1] ?? ''): string {
  if (/(^|[\\/])cli\.m?js$/.test(argv1)) return `"${process.execPath}" "${resolve(argv1)}"`;
  return 'k0maru';
}
