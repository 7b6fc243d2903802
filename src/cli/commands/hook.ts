import { runPreCommitHook, runStopHook } from '../../core/guard/stopHook';
import { K0Error } from '../../core/errors';
import { readAll, type Command } from '../command';

/** Entry points the installed hooks call; exit codes follow what git and Claude Code expect (see docs/guard.md). */
export const hookCommand: Command = {
  name: 'hook',
  summary: 'Run a guard hook: pre-commit (staged changes) or stop (Claude Code Stop hook, reads its JSON on stdin)',
  usage: 'hook pre-commit [--strict] | hook stop [--strict]',
  options: { strict: { type: 'boolean' } },
  allowPositionals: true,
  async run({ positionals, values, io, vault }) {
    const which = positionals[0];
    const base = { cwd: io.cwd, env: io.env, vault, strict: !!values.strict };
    let outcome;
    if (which === 'pre-commit') outcome = await runPreCommitHook(base);
    else if (which === 'stop') {
      // Claude Code pipes the event JSON; run by hand from a terminal there is nothing to wait for.
      const tty = (io.stdin as { isTTY?: boolean }).isTTY;
      outcome = await runStopHook(tty ? '' : await readAll(io.stdin).catch(() => ''), base);
    }
    else throw new K0Error('INVALID_ARGUMENT', `unknown hook '${which ?? ''}' (expected pre-commit or stop)`);
    if (outcome.stdout) io.stdout.write(outcome.stdout);
    if (outcome.stderr) io.stderr.write(outcome.stderr);
    return outcome.exitCode;
  },
};
