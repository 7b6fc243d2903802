import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { K0Error } from '../errors';
import { writeFileAtomic } from '../fsutil/atomicWrite';
import { bootstrapSource } from './bootstrap';
import { currentCliCommand } from './launcher';
import { nodeLauncherSource } from './nodeLauncher';

/**
 * Registers the MCP server with every agent client that reads a project file: Claude Code (`.mcp.json`), Cursor
 * (`.cursor/mcp.json`), VS Code (`.vscode/mcp.json`, key `servers`) and Gemini CLI (`.gemini/settings.json`).
 * Windsurf only has a global file: we print its snippet and write it only with `global`.
 *
 * Every entry runs `node -e <bootstrap> <start>` (bootstrap.ts): it walks up from `<start>` to the committed
 * launcher `.k0maru/bin/k0maru-mcp.cjs` (nodeLauncher.ts), which finds k0maru on the machine at hand and passes
 * the project root it sits in as the vault — so a teammate's fresh checkout works, on Windows too (no `sh`), and
 * so do Claude Code started in a subfolder and Cursor, which starts servers with cwd `/`. Existing entries are never clobbered: another server named `k0maru` is
 * left alone and reported. What we wrote is recorded in `.k0maru/agents-install.json` so uninstall puts each file
 * back exactly as it was (or removes only our entry when the user edited the file since).
 */
export const SERVER_NAME = 'k0maru';
const LAUNCHER_REL = '.k0maru/bin/k0maru-mcp.cjs';
/** The sh launcher earlier versions wrote; replaced (and removed) by the Node one. */
const LEGACY_LAUNCHER_REL = '.k0maru/bin/k0maru-mcp';
const STATE_REL = '.k0maru/agents-install.json';

interface ClientSpec {
  client: string;
  file: string;
  key: 'mcpServers' | 'servers';
  entry: Record<string, unknown>;
}

function clients(): ClientSpec[] {
  const boot = bootstrapSource('k0maru-mcp.cjs', 127);
  const node = (start: string) => ({ command: 'node', args: ['-e', boot, start] });
  return [
    // Claude Code leaves CLAUDE_PROJECT_DIR unset for servers started in a subfolder: '.' is then that subfolder.
    { client: 'Claude Code', file: '.mcp.json', key: 'mcpServers', entry: { type: 'stdio', ...node('${CLAUDE_PROJECT_DIR:-.}') } },
    { client: 'Cursor', file: '.cursor/mcp.json', key: 'mcpServers', entry: { type: 'stdio', ...node('${workspaceFolder}') } },
    { client: 'VS Code', file: '.vscode/mcp.json', key: 'servers', entry: { type: 'stdio', ...node('${workspaceFolder}') } },
    { client: 'Gemini CLI', file: '.gemini/settings.json', key: 'mcpServers', entry: { ...node('.'), timeout: 30000 } },
  ];
}

export interface AgentInstallOptions {
  /** How to run k0maru, recorded in the launcher as one fallback (default: this process's CLI). */
  command?: string;
  /** Also write Windsurf's global config (outside the repository). */
  global?: boolean;
  home?: string;
  /** Clients not to configure: 'VS Code' when the editor registers the server itself (it would be listed twice). */
  skipClients?: string[];
}

export interface AgentInstallReport {
  changed: string[];
  /** Files removed (the sh launcher of earlier versions). */
  deleted: string[];
  unchanged: string[];
  /** Clients whose file already had a different `k0maru` entry, kept as it was. */
  kept: string[];
  windsurfSnippet: string;
  windsurfFile: string;
}

interface FileState {
  existed: boolean;
  original?: string;
  installed: string;
}
type State = Record<string, FileState>;

function readJsonObject(abs: string, text: string | undefined): Record<string, unknown> {
  if (text === undefined || !text.trim()) return {};
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  throw new K0Error('INVALID_ARGUMENT', `${abs} is not a JSON object; fix or remove it, nothing was changed`);
}

function readState(root: string): State {
  try {
    return JSON.parse(readFileSync(join(root, STATE_REL), 'utf8')) as State;
  } catch {
    return {};
  }
}

function windsurfConfig(home: string): string {
  return join(home, '.codeium', 'windsurf', 'mcp_config.json');
}

export function installAgents(projectRoot: string, opts: AgentInstallOptions = {}): AgentInstallReport {
  const root = resolve(projectRoot);
  const state = readState(root);
  const report: AgentInstallReport = { changed: [], deleted: [], unchanged: [], kept: [], windsurfSnippet: '', windsurfFile: windsurfConfig(opts.home ?? homedir()) };
  // Read and validate everything before writing anything: a broken config aborts the whole install.
  const plans = clients().filter((c) => !opts.skipClients?.includes(c.client)).map((c) => {
    const abs = join(root, c.file);
    const current = existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
    return { c, abs, current, json: readJsonObject(abs, current) };
  });

  const launcher = join(root, LAUNCHER_REL);
  const script = nodeLauncherSource('mcp', opts.command ?? currentCliCommand());
  const launcherNow = existsSync(launcher) ? readFileSync(launcher, 'utf8') : undefined;
  if (launcherNow !== script) {
    mkdirSync(dirname(launcher), { recursive: true });
    writeFileAtomic(launcher, script);
    chmodSync(launcher, 0o755);
    report.changed.push(LAUNCHER_REL);
  } else report.unchanged.push(LAUNCHER_REL);
  if (removeLegacyLauncher(root)) report.deleted.push(LEGACY_LAUNCHER_REL);

  for (const { c, abs, current, json } of plans) {
    const servers = (json[c.key] && typeof json[c.key] === 'object' ? json[c.key] : {}) as Record<string, unknown>;
    const existing = servers[SERVER_NAME];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(c.entry) && !state[c.file]) {
      report.kept.push(`${c.client} (${c.file})`);
      continue;
    }
    const next = JSON.stringify({ ...json, [c.key]: { ...servers, [SERVER_NAME]: c.entry } }, null, 2) + '\n';
    if (next === current) {
      report.unchanged.push(c.file);
      continue;
    }
    state[c.file] ??= { existed: current !== undefined, original: current, installed: next };
    state[c.file].installed = next;
    writeFileAtomic(abs, next);
    report.changed.push(c.file);
  }
  writeFileAtomic(join(root, STATE_REL), JSON.stringify(state, null, 2) + '\n');

  const snippet = { mcpServers: { [SERVER_NAME]: { command: 'node', args: [launcher] } } };
  report.windsurfSnippet = JSON.stringify(snippet, null, 2);
  if (opts.global) {
    const wf = report.windsurfFile;
    const current = existsSync(wf) ? readFileSync(wf, 'utf8') : undefined;
    const json = readJsonObject(wf, current);
    const servers = (json.mcpServers ?? {}) as Record<string, unknown>;
    if (servers[SERVER_NAME] === undefined || JSON.stringify(servers[SERVER_NAME]) === JSON.stringify(snippet.mcpServers[SERVER_NAME])) {
      const next = JSON.stringify({ ...json, mcpServers: { ...servers, [SERVER_NAME]: snippet.mcpServers[SERVER_NAME] } }, null, 2) + '\n';
      if (next !== current) {
        writeFileAtomic(wf, next);
        report.changed.push(wf);
      } else report.unchanged.push(wf);
    } else report.kept.push(`Windsurf (${wf})`);
  }
  return report;
}

/** Reverses `installAgents`: each file back to its bytes before install, or only our entry removed if edited since. */
export function uninstallAgents(projectRoot: string): { restored: string[]; deleted: string[]; edited: string[] } {
  const root = resolve(projectRoot);
  const state = readState(root);
  const out = { restored: [] as string[], deleted: [] as string[], edited: [] as string[] };
  for (const c of clients()) {
    const s = state[c.file];
    if (!s) continue;
    const abs = join(root, c.file);
    const current = existsSync(abs) ? readFileSync(abs, 'utf8') : undefined;
    if (current === s.installed) {
      // Said as it happened: a file install created is deleted, one it changed gets its old bytes back.
      if (s.existed) {
        writeFileAtomic(abs, s.original ?? '');
        out.restored.push(c.file);
      } else {
        rmSync(abs, { force: true });
        out.deleted.push(c.file);
      }
    } else if (current !== undefined) {
      let json: Record<string, unknown>;
      try {
        json = readJsonObject(abs, current);
      } catch {
        continue; // the user rewrote it into something else: leave it
      }
      const servers = { ...((json[c.key] ?? {}) as Record<string, unknown>) };
      delete servers[SERVER_NAME];
      writeFileAtomic(abs, JSON.stringify({ ...json, [c.key]: servers }, null, 2) + '\n');
      out.edited.push(c.file);
    }
  }
  if (existsSync(join(root, LAUNCHER_REL))) {
    rmSync(join(root, LAUNCHER_REL), { force: true });
    out.deleted.push(LAUNCHER_REL);
  }
  if (removeLegacyLauncher(root)) out.deleted.push(LEGACY_LAUNCHER_REL);
  rmSync(join(root, STATE_REL), { force: true });
  return out;
}

/** Removes the sh MCP launcher of earlier versions when it is ours (its second line says so). */
function removeLegacyLauncher(root: string): boolean {
  const abs = join(root, LEGACY_LAUNCHER_REL);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch {
    return false;
  }
  if (!text.startsWith('#!/bin/sh\n# Written by k0maru')) return false;
  rmSync(abs, { force: true });
  return true;
}
