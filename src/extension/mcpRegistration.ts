import * as vscode from 'vscode';
import { join } from 'node:path';

export const MCP_PROVIDER_ID = 'k0maru.mcp';
export const MCP_SERVER_NAME = 'k0maru';

/** How the bundled MCP server is started for this workspace. */
export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export type McpRegistration = 'vscode' | 'cursor' | 'none' | 'untrusted';

/**
 * The extension host's own executable runs the server: in VS Code desktop and Cursor that is Electron, which acts
 * as Node with ELECTRON_RUN_AS_NODE=1 (no Node install needed on the user's machine, and a Node version the
 * bundle targets); in code-server it is already Node and the variable is ignored. `--vault` pins the project, so
 * the client's working directory never matters (Cursor starts stdio servers in `/`).
 */
export function mcpLaunch(extensionPath: string, projectRoot: string): McpLaunch {
  return {
    command: process.execPath,
    args: [join(extensionPath, 'dist', 'mcp.mjs'), '--vault', projectRoot],
    env: { ELECTRON_RUN_AS_NODE: '1' },
  };
}

// The APIs below are newer than our @types/vscode (1.100, the engines floor): reached through `any`, detected at
// run time, so the extension still loads on hosts and forks without them.
/* eslint-disable @typescript-eslint/no-explicit-any */

/** Registers the server with whichever host API exists; nothing in an untrusted workspace. */
export function registerMcpServer(launch: McpLaunch, version: string, log: vscode.LogOutputChannel): { kind: McpRegistration; disposable: vscode.Disposable } {
  const none = { dispose() {} };
  if (!vscode.workspace.isTrusted) return { kind: 'untrusted', disposable: none };
  const api = vscode as any;
  const cursorMcp = api.cursor?.mcp;
  if (typeof cursorMcp?.registerServer === 'function') {
    try {
      cursorMcp.registerServer({ name: MCP_SERVER_NAME, server: { command: launch.command, args: launch.args, env: launch.env } });
      log.info('MCP server registered with Cursor');
      return {
        kind: 'cursor',
        disposable: { dispose: () => { try { cursorMcp.unregisterServer?.(MCP_SERVER_NAME); } catch { /* host shutting down */ } } },
      };
    } catch (err) {
      log.warn(`Cursor MCP registration failed: ${(err as Error).message}`);
    }
  }
  const Definition = api.McpStdioServerDefinition;
  if (typeof api.lm?.registerMcpServerDefinitionProvider === 'function' && typeof Definition === 'function') {
    const changed = new vscode.EventEmitter<void>();
    const provider = {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => [new Definition('K0maru Agent Memory', launch.command, launch.args, launch.env, version)],
      resolveMcpServerDefinition: (d: unknown) => d,
    };
    try {
      const reg: vscode.Disposable = api.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider);
      log.info('MCP server definition provider registered');
      return { kind: 'vscode', disposable: vscode.Disposable.from(reg, changed) };
    } catch (err) {
      // VS Code 1.100 has the function but only as a proposed API (it throws for extensions without the proposal).
      changed.dispose();
      log.debug(`MCP provider registration refused: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  log.info(`MCP: VS Code ${vscode.version} has no MCP server API for extensions (it needs 1.101); agents start the server from their own config files, written by "K0maru: Install Agent Integrations".`);
  return { kind: 'none', disposable: none };
}

export const NO_PROVIDER_NOTICE_KEY = 'k0maru.mcpNoProviderNoticeShown';

/**
 * Without the provider API the editor's own chat cannot list the server by itself: say once (per installation) how
 * agents get it, with the command that writes their configs. Later sessions only log it.
 */
export function tellNoProviderOnce(state: vscode.Memento): 'shown' | 'already-shown' {
  if (state.get<boolean>(NO_PROVIDER_NOTICE_KEY)) return 'already-shown';
  void state.update(NO_PROVIDER_NOTICE_KEY, true);
  const install = 'Install Agent Integrations';
  void vscode.window
    .showInformationMessage(
      `K0maru: this VS Code (${vscode.version}) cannot list MCP servers from extensions (1.101 can). Copilot Chat, Claude Code, Cursor and Gemini CLI start the K0maru server from their config files: "${install}" writes them for this project.`,
      install,
    )
    .then((pick) => {
      if (pick === install) void vscode.commands.executeCommand('k0maru.installIntegrations');
    });
  return 'shown';
}
