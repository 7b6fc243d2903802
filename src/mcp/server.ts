import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../core/version';
import { ProjectHost, type ProjectHostOptions } from '../core/host';
import { TOOLS } from './tools/index';
import type { ToolContext } from './tools/types';

export type ServerMode = 'full' | 'sidecar';

/** One step of the MCP server's background fill: it re-reads the index between steps (batches are ~40 ms each). */
export const MCP_FILL_STEP_MS = 2000;

export interface K0McpServer {
  server: McpServer;
  host: ProjectHost;
  tools: string[];
  /** Resolves once no tool call is running. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the MCP server: full mode registers every working tool, `--sidecar` only the ones marked for it (omp has
 * its own offloader and compactor). A tool is in TOOLS only once its engine really works.
 */
export interface McpServerOptions extends Pick<ProjectHostOptions, 'vault' | 'log'> {
  cwd: string;
  env: NodeJS.ProcessEnv;
  mode?: ServerMode;
}

export function createMcpServer(opts: McpServerOptions): K0McpServer {
  const mode = opts.mode ?? 'full';
  const server = new McpServer(
    { name: 'k0maru', version: VERSION },
    { instructions: 'K0maru Agent Memory: call get_project_loadout at the start of a session, recall_memory before answering from memory, guard_check before committing, flush_session to record decisions.' },
  );
  // The one long-lived host: warm scanner, single-flight scans, one embedding worker. Once a hybrid recall has
  // started the model, the worker fills the missing vectors between calls (giving way to every call), so an agent
  // gets real hybrid recall after a while instead of BM25 for hundreds of calls; each answer says its coverage.
  const host = new ProjectHost({ vault: opts.vault, cwd: opts.cwd, env: opts.env, log: opts.log, backgroundFill: { stepMs: MCP_FILL_STEP_MS, onCovered: () => {} } });
  const ctx: ToolContext = { host, cwd: opts.cwd, env: opts.env };
  const registered: string[] = [];
  let running = 0;
  let waiters: (() => void)[] = [];
  const track = async <T>(p: Promise<T>): Promise<T> => {
    running++;
    try {
      return await p;
    } finally {
      running--;
      if (!running) {
        for (const w of waiters) w();
        waiters = [];
      }
    }
  };
  // A read-only call that meets a corrupt index runs once more on the rebuilt one (ProjectHost.healing) and says so.
  const healing = async (tool: (typeof TOOLS)[number], run: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    if (tool.annotations.readOnlyHint !== true) return run();
    const { value, warning } = await host.healing(run, isCorruptIndexResult);
    return warning ? { ...value, content: [...value.content, { type: 'text', text: `warning: ${warning}` }] } : value;
  };
  for (const tool of TOOLS) {
    if (mode === 'sidecar' && !tool.sidecar) continue;
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations },
      // The request's signal fires when the client cancels: the tool stops waiting for scans and embedding.
      ((args: Record<string, unknown>, extra: { signal?: AbortSignal }) => track(healing(tool, () => tool.handler(args, { ...ctx, signal: extra?.signal })))) as never,
    );
    registered.push(tool.name);
  }
  return {
    server,
    host,
    tools: registered,
    idle: () => (running ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve()),
    close: async () => {
      await host.close();
      await server.close();
    },
  };
}

/** errorResult() puts the code first: `INDEX_CORRUPT: …`. */
function isCorruptIndexResult(r: CallToolResult): boolean {
  const first = r.content[0];
  return r.isError === true && first?.type === 'text' && first.text.startsWith('INDEX_CORRUPT:');
}
