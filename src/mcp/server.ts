import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../cli/version';
import { ProjectSession, type SessionOptions } from '../core/projectSession';
import { TOOLS } from './tools/index';
import type { ToolContext } from './tools/types';

export type ServerMode = 'full' | 'sidecar';

export interface K0McpServer {
  server: McpServer;
  session: ProjectSession;
  tools: string[];
  /** Resolves once no tool call is running. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the MCP server: full mode registers every working tool, `--sidecar` only the ones marked for it (omp has
 * its own offloader and compactor). A tool is in TOOLS only once its engine really works.
 */
export function createMcpServer(opts: SessionOptions & { mode?: ServerMode }): K0McpServer {
  const mode = opts.mode ?? 'full';
  const server = new McpServer(
    { name: 'k0maru', version: VERSION },
    { instructions: 'K0maru Agent Memory: call get_project_loadout at the start of a session, recall_memory before answering from memory, guard_check before committing, flush_session to record decisions.' },
  );
  const session = new ProjectSession(opts);
  const ctx: ToolContext = { session, cwd: opts.cwd, env: opts.env };
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
  for (const tool of TOOLS) {
    if (mode === 'sidecar' && !tool.sidecar) continue;
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations },
      ((args: Record<string, unknown>) => track(tool.handler(args, ctx))) as never,
    );
    registered.push(tool.name);
  }
  return {
    server,
    session,
    tools: registered,
    idle: () => (running ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve()),
    close: async () => {
      await session.close();
      await server.close();
    },
  };
}
