import { chmodSync, existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { K0Error } from '../errors';
import { runGitSync } from '../git/run';
import { currentCliCommand, launcherScript } from '../install/launcher';
import { bootstrapSource } from '../install/bootstrap';
import { nodeLauncherSource } from '../install/nodeLauncher';

/**
 * Installs the pre-commit guard and the Claude Code Stop hook without clobbering anything:
 *  - pre-commit framework (`.pre-commit-config.yaml` exists) → a `repo: local` hook;
 *  - husky (`.husky/` exists) → a block in `.husky/pre-commit`;
 *  - otherwise the hooks folder git really uses (`git rev-parse --git-path hooks`, so `core.hooksPath` and
 *    worktrees are respected) → a block in `pre-commit`; an existing foreign script is kept and runs after it;
 *  - `.claude/settings.json` → a `hooks.Stop` entry merged into what is there.
 * Every hook calls one launcher, `.k0maru/bin/k0maru-hook` (git, through sh) or its Node twin `k0maru-hook.cjs`
 * (Claude Code's Stop hook, reached from any subfolder, on Windows too), which finds k0maru from a fresh checkout.
 * Install is idempotent. The original bytes of every touched file are recorded in `.k0maru/hooks-install.json`;
 * uninstall restores them exactly when the file still holds what install wrote, and otherwise removes only our
 * marked block / entry (the user edited the file since).
 */

export const BEGIN = '# >>> k0maru guard >>>';
export const END = '# <<< k0maru guard <<<';
const LAUNCHER_REL = '.k0maru/bin/k0maru-hook';
const STATE_REL = '.k0maru/hooks-install.json';
// The Stop hook runs through Node (no `sh` on a stock Windows PATH) and walks up to the project from any
// subfolder (src/core/install/bootstrap.ts); git's pre-commit keeps the sh launcher, git always ships sh.
const NODE_LAUNCHER_REL = '.k0maru/bin/k0maru-hook.cjs';
const STOP_COMMAND = `node -e "${bootstrapSource('k0maru-hook.cjs', 0)}" . stop`;
/** Stop hook commands earlier versions wrote: replaced, not duplicated, on install; removed on uninstall. */
const LEGACY_STOP_COMMANDS = ['sh "${CLAUDE_PROJECT_DIR:-.}/.k0maru/bin/k0maru-hook" stop'];
const isOurStop = (command: string | undefined) => command === STOP_COMMAND || LEGACY_STOP_COMMANDS.includes(command ?? '');

export interface InstallOptions {
  /**
   * How to run k0maru, recorded in the launcher as one fallback (e.g. `"/usr/bin/node" "/opt/k0maru/dist/cli.js"`).
   * Defaults to the running node + CLI script when that is the bundled `cli.js`.
   */
  command?: string;
  claude?: boolean;
  git?: boolean;
}

export interface InstallReport {
  changed: string[];
  unchanged: string[];
  target: 'pre-commit-framework' | 'husky' | 'git-hooks' | 'none';
}

interface FileState {
  existed: boolean;
  original?: string;
  installed: string;
  mode?: number;
}
interface State {
  files: Record<string, FileState>;
}

function readState(root: string): State {
  try {
    return JSON.parse(readFileSync(join(root, STATE_REL), 'utf8')) as State;
  } catch {
    return { files: {} };
  }
}

function writeState(root: string, s: State): void {
  const p = join(root, STATE_REL);
  if (!Object.keys(s.files).length) return rmSync(p, { force: true });
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, JSON.stringify(s, null, 2) + '\n');
}

/** How to run k0maru from a hook: this process's bundled CLI when that is what runs, else `k0maru`. */
export const defaultCommand = (): string => currentCliCommand();

/**
 * The committed hook launcher (see src/core/install/launcher.ts for how it finds k0maru). When k0maru is nowhere
 * to be found the guard is skipped with a warning: it never blocks work merely because it is not installed.
 */
export function hookLauncherScript(command: string): string {
  return launcherScript({
    command,
    subcommand: 'hook',
    passVault: false,
    whenMissing: 'echo "k0maru: not found (set K0MARU_BIN or npm i -D k0maru-agent-memory); Living ADR Guard skipped" >&2\nexit 0',
  });
}

function gitHooksDir(root: string): string {
  // The one call that must see the repository's own core.hooksPath (husky and others set it).
  const out = runGitSync(root, ['rev-parse', '--git-path', 'hooks'], { keepHooksPath: true }).trim();
  return isAbsolute(out) ? out : resolve(root, out);
}

function hookBlock(): string {
  return `${BEGIN}\nsh "$(git rev-parse --show-toplevel)/${LAUNCHER_REL}" pre-commit || exit $?\n${END}\n`;
}

/** Decides where the pre-commit guard goes; see the module comment for the order. */
function preCommitTarget(root: string): { target: InstallReport['target']; file: string } {
  if (existsSync(join(root, '.pre-commit-config.yaml'))) return { target: 'pre-commit-framework', file: join(root, '.pre-commit-config.yaml') };
  if (existsSync(join(root, '.husky'))) return { target: 'husky', file: join(root, '.husky', 'pre-commit') };
  return { target: 'git-hooks', file: join(gitHooksDir(root), 'pre-commit') };
}

export function installHooks(projectRoot: string, opts: InstallOptions = {}): InstallReport {
  const root = resolve(projectRoot);
  const state = readState(root);
  const report: InstallReport = { changed: [], unchanged: [], target: 'none' };
  const put = (abs: string, next: (current: string | undefined) => string, mode?: number) => {
    const rel = relative(root, abs).split('\\').join('/');
    const current = existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
    const content = next(current);
    if (content === current) {
      report.unchanged.push(rel);
      return;
    }
    const prev = state.files[rel];
    state.files[rel] = prev ? { ...prev, installed: content } : { existed: current !== undefined, original: current, installed: content, mode };
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    if (mode) chmodSync(abs, mode);
    report.changed.push(rel);
  };

  // Validate what can be refused (invalid settings JSON, an inline `repos: []`-less YAML) before writing anything.
  const settingsPath = join(root, '.claude', 'settings.json');
  if (opts.claude !== false) addStopHook(existsSync(settingsPath) ? readFileSync(settingsPath, 'utf8') : undefined);
  const pre = opts.git !== false ? preCommitTarget(root) : undefined;
  if (pre?.target === 'pre-commit-framework') addPreCommitFrameworkHook(readFileSync(pre.file, 'utf8'));
  try {
    put(join(root, LAUNCHER_REL), () => hookLauncherScript(opts.command ?? defaultCommand()), 0o755);
    if (pre) {
      report.target = pre.target;
      if (pre.target === 'pre-commit-framework') put(pre.file, (cur) => addPreCommitFrameworkHook(cur ?? ''));
      else put(pre.file, (cur) => addShellBlock(cur, pre.target === 'husky'), 0o755);
    }
    if (opts.claude !== false) {
      put(join(root, NODE_LAUNCHER_REL), () => nodeLauncherSource('hook', opts.command ?? defaultCommand()), 0o755);
      put(settingsPath, (cur) => addStopHook(cur));
    }
  } finally {
    writeState(root, state); // even after a failure, so uninstall can undo what was written
  }
  return report;
}

export function uninstallHooks(projectRoot: string): { restored: string[]; deleted: string[]; edited: string[] } {
  const root = resolve(projectRoot);
  const state = readState(root);
  const out = { restored: [] as string[], deleted: [] as string[], edited: [] as string[] };
  for (const [rel, fs] of Object.entries(state.files)) {
    const abs = join(root, rel);
    const current = existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
    if (current === fs.installed || current === undefined || rel === LAUNCHER_REL || rel === NODE_LAUNCHER_REL) {
      // Reported as what happened: a file install created is deleted, one it changed is restored.
      if (fs.existed && fs.original !== undefined) {
        writeFileSync(abs, fs.original);
        out.restored.push(rel);
      } else if (current !== undefined) {
        rmSync(abs, { force: true });
        out.deleted.push(rel);
      }
    } else {
      // Edited since install: take out only what we added.
      const cleaned = rel.endsWith('settings.json') ? removeStopHook(current) : removeBlock(current);
      if (!fs.existed && cleaned.trim() === '' ) rmSync(abs, { force: true });
      else writeFileSync(abs, cleaned);
      out.edited.push(rel);
    }
    pruneEmptyDirs(root, dirname(abs));
  }
  rmSync(join(root, STATE_REL), { force: true });
  pruneEmptyDirs(root, join(root, '.k0maru', 'bin'));
  return out;
}

function pruneEmptyDirs(root: string, dir: string): void {
  for (let d = dir; d.startsWith(root) && d !== root && !d.endsWith('.git') && !d.endsWith('.k0maru'); d = dirname(d)) {
    try {
      rmdirSync(d); // only succeeds when empty: folders we created, never content
    } catch {
      return;
    }
  }
}

/** Our block goes right after the shebang so a foreign script's `exit 0` cannot skip the guard. */
export function addShellBlock(current: string | undefined, husky: boolean): string {
  if (current?.includes(BEGIN)) return current;
  if (current === undefined || current.trim() === '') return (husky ? '' : '#!/bin/sh\n') + hookBlock();
  const lines = current.split('\n');
  const at = lines[0].startsWith('#!') ? 1 : 0;
  lines.splice(at, 0, hookBlock().trimEnd());
  return lines.join('\n');
}

export function removeBlock(text: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < 0) return text;
  let after = end + END.length;
  if (text[after] === '\n') after++;
  return text.slice(0, start) + text.slice(after);
}

export function addPreCommitFrameworkHook(yaml: string): string {
  if (yaml.includes(BEGIN)) return yaml;
  const lines = yaml.split('\n');
  const idx = lines.findIndex((l) => /^repos:\s*(\[\s*\])?\s*(#.*)?$/.test(l));
  if (idx < 0) {
    if (/^repos:/m.test(yaml)) throw new K0Error('INVALID_ARGUMENT', '.pre-commit-config.yaml: `repos:` is not a block list; add the k0maru hook by hand (see docs/guard.md)');
    return yaml + (yaml.endsWith('\n') || !yaml ? '' : '\n') + 'repos:\n' + frameworkEntry('  ');
  }
  const firstItem = lines.slice(idx + 1).find((l) => /^\s*-\s/.test(l));
  const indent = firstItem ? /^(\s*)/.exec(firstItem)![1] : '  ';
  const empty = /\[\s*\]/.test(lines[idx]);
  if (empty) lines[idx] = 'repos:';
  lines.splice(idx + 1, 0, frameworkEntry(indent).trimEnd());
  return lines.join('\n');
}

function frameworkEntry(indent: string): string {
  return [
    BEGIN,
    `${indent}- repo: local`,
    `${indent}  hooks:`,
    `${indent}    - id: k0maru-guard`,
    `${indent}      name: k0maru Living ADR Guard`,
    `${indent}      entry: sh ${LAUNCHER_REL} pre-commit`,
    `${indent}      language: system`,
    `${indent}      pass_filenames: false`,
    `${indent}      always_run: true`,
    END,
    '',
  ].join('\n');
}

interface ClaudeHookEntry {
  matcher?: string;
  hooks?: { type?: string; command?: string; timeout?: number }[];
}

export function addStopHook(current: string | undefined): string {
  let settings: Record<string, unknown> = {};
  if (current !== undefined && current.trim()) {
    try {
      settings = JSON.parse(current) as Record<string, unknown>;
    } catch (err) {
      throw new K0Error('INVALID_ARGUMENT', `.claude/settings.json is not valid JSON (${(err as Error).message}); not touching it`);
    }
  }
  const hooks = (settings.hooks && typeof settings.hooks === 'object' ? settings.hooks : {}) as Record<string, ClaudeHookEntry[]>;
  const all = Array.isArray(hooks.Stop) ? hooks.Stop : [];
  if (all.some((e) => e.hooks?.some((h) => h.command === STOP_COMMAND))) return current!;
  const stop = all.map((e) => ({ ...e, hooks: e.hooks?.filter((h) => !isOurStop(h.command)) })).filter((e, i) => e.hooks?.length || !all[i].hooks?.length);
  settings.hooks = { ...hooks, Stop: [...stop, { hooks: [{ type: 'command', command: STOP_COMMAND, timeout: 60 }] }] };
  return JSON.stringify(settings, null, 2) + '\n';
}

export function removeStopHook(current: string): string {
  let settings: Record<string, unknown>;
  try {
    settings = JSON.parse(current) as Record<string, unknown>;
  } catch {
    return current;
  }
  const hooks = settings.hooks as Record<string, ClaudeHookEntry[]> | undefined;
  if (!hooks || !Array.isArray(hooks.Stop)) return current;
  const stop = hooks.Stop.map((e) => ({ ...e, hooks: e.hooks?.filter((h) => !isOurStop(h.command)) })).filter((e) => e.hooks?.length);
  if (stop.length) hooks.Stop = stop;
  else delete hooks.Stop;
  if (!Object.keys(hooks).length) delete settings.hooks;
  return JSON.stringify(settings, null, 2) + '\n';
}
