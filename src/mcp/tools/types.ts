import type { ToolAnnotations, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ZodRawShape } from 'zod';
import type { ProjectSession } from '../../core/projectSession';

export interface ToolContext {
  session: ProjectSession;
  cwd: string;
  env: NodeJS.ProcessEnv;
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
