import type { ToolDefinition } from './types';
import { getProjectLoadoutTool } from './loadout';
import { recallMemoryTool } from './recall';
import { guardCheckTool } from './guard';
import { flushSessionTool } from './flush';
import { distillSessionSkillTool, gcSessionContextTool, inspectLogNodeTool, offloadContextTool } from './economy';

/** Registered tools, in the seed's order. */
export const TOOLS: ToolDefinition[] = [
  getProjectLoadoutTool,
  recallMemoryTool,
  guardCheckTool,
  flushSessionTool,
  distillSessionSkillTool,
  offloadContextTool,
  inspectLogNodeTool,
  gcSessionContextTool,
];
