import type { ToolAnnotations, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ZodRawShape } from 'zod';
import type { ProjectHost } from '../../core/host';

export interface ToolContext {
  /** The server's one long-lived host (scan before answer, vectors). */
  host: ProjectHost;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** This call's cancellation (the client sent notifications/cancelled, or the server is closing). */
  signal?: AbortSignal;
}

/** One MCP tool: its contract (name, description, input schema as in the seed) and its handler. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: ZodRawShape;
  outputSchema?: ZodRawShape;
  annotations: ToolAnnotations;
  /** Registered with `--sidecar` too (the seed's five). */
  sidecar: boolean;
  handler(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
}
