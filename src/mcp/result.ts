import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toK0Error } from '../core/errors';

export function textResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

/** Expected failures become `isError` results with the error code first, so the model can react; nothing throws. */
export function errorResult(err: unknown): CallToolResult {
  const e = toK0Error(err);
  return { isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}` }] };
}

/** Runs a tool body and turns whatever it throws into an isError result. */
export async function guarded(fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (err) {
    return errorResult(err);
  }
}
