import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardCheck, type GuardCheckOptions } from './check';
import { renderGuardReport } from './report';
import type { GuardResult } from './types';
import { digest } from './digest';

/**
 * Claude Code Stop hook policy (exit 2 + stderr = "keep working and fix this"; exit 0 = let the agent stop;
 * exit 1 or a crash = fail-open, Claude just stops):
 *  - violations in the working tree → exit 2 with the report, the agent continues and fixes them;
 *  - `stop_hook_active: true` (we already blocked once in this stop sequence) → block again only while the agent
 *    makes progress: when the set of violations is identical to the one we last blocked with, or we have already
 *    blocked MAX_BLOCKS times in a row, we let it stop (exit 0) and say so on stderr. The pre-commit hook still
 *    refuses the commit, so nothing slips through; we just never trap the agent in a loop it cannot leave;
 *  - an internal error (not a git repo, git missing, a bug) → exit 1: deliberately fail-open, because blocking
 *    on our own failure would loop the agent on something it cannot fix. The error is on stderr for the user.
 */
export const MAX_BLOCKS = 3;

export interface StopHookInput {
  session_id?: string;
  cwd?: string;
  stop_hook_active?: boolean;
}

export interface HookOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  result?: GuardResult;
}

interface StopState {
  session?: string;
  fingerprint: string;
  blocks: number;
}

function fingerprint(r: GuardResult): string {
  return r.violations.map((v) => `${v.ruleId}|${v.path}|${v.line}|${v.match}`).sort().join('\n');
}

export async function runStopHook(stdinText: string, base: GuardCheckOptions & { cwd: string; env: NodeJS.ProcessEnv }): Promise<HookOutcome> {
  let input: StopHookInput = {};
  try {
    input = stdinText.trim() ? (JSON.parse(stdinText) as StopHookInput) : {};
  } catch {
    input = {}; // a malformed payload must not disable the guard: check the project anyway
  }
  const cwd = input.cwd || base.env.CLAUDE_PROJECT_DIR || base.cwd;
  let result: GuardResult;
  try {
    result = await guardCheck({ ...base, cwd });
  } catch (err) {
    return { exitCode: 1, stdout: '', stderr: `k0maru guard (Stop hook) could not run, not blocking: ${(err as Error).message}\n` };
  }
  // Per project + session, outside the repository so it can never be committed.
  const key = digest(`${cwd}\0${input.session_id ?? ''}`);
  const statePath = join(tmpdir(), `k0maru-stop-${key}.json`);
  if (result.ok) {
    writeStopState(statePath, undefined);
    return { exitCode: 0, stdout: '', stderr: '', result };
  }
  const fp = fingerprint(result);
  const prev = readStopState(statePath);
  const sameSession = prev && prev.session === input.session_id;
  const blocks = input.stop_hook_active && sameSession ? prev.blocks : 0;
  const report = renderGuardReport(result);
  if (input.stop_hook_active && sameSession && (prev.fingerprint === fp || blocks >= MAX_BLOCKS)) {
    writeStopState(statePath, undefined);
    return {
      exitCode: 0,
      stdout: '',
      stderr: `${report}\nk0maru: the same violations remain after ${blocks} attempt(s); letting the agent stop. The pre-commit hook will still refuse this commit.\n`,
      result,
    };
  }
  writeStopState(statePath, { session: input.session_id, fingerprint: fp, blocks: blocks + 1 });
  return { exitCode: 2, stdout: '', stderr: `${report}\nFix the violations above (or change the ADR if the decision changed), then finish.\n`, result };
}

function readStopState(path: string): StopState | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as StopState;
  } catch {
    return undefined;
  }
}

function writeStopState(path: string, s: StopState | undefined): void {
  try {
    if (!s) {
      rmSync(path, { force: true });
      return;
    }
    writeFileSync(path, JSON.stringify(s) + '\n');
  } catch {
    // State only softens the loop policy; failing to write it must not change the verdict.
  }
}

/**
 * `k0maru hook pre-commit`: staged changes; exit 1 with the report on violations (git aborts the commit).
 * Internal errors also exit 1 — a commit guard fails closed; `git commit --no-verify` is the escape hatch and
 * the launcher already skips the guard when k0maru is not installed at all.
 */
export async function runPreCommitHook(base: GuardCheckOptions & { cwd: string }): Promise<HookOutcome> {
  try {
    const result = await guardCheck({ ...base, staged: true });
    const report = renderGuardReport(result);
    if (!result.ok) return { exitCode: 1, stdout: '', stderr: report + '\n(commit aborted: fix the code, or bypass once with git commit --no-verify)\n', result };
    return { exitCode: 0, stdout: '', stderr: result.violations.length || result.diagnostics.length ? report + '\n' : '', result };
  } catch (err) {
    return { exitCode: 1, stdout: '', stderr: `k0maru guard (pre-commit) failed: ${(err as Error).message}\n(bypass once with git commit --no-verify)\n` };
  }
}
