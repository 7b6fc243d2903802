import type { Command } from '../command';
import { scanCommand } from './scan';
import { recallCommand } from './recall';
import { mcpCommand } from './mcp';
import { modelCommand } from './model';
import { initCommand } from './init';
import { flushCommand } from './flush';
import { offloadCommand } from './offload';
import { inspectCommand } from './inspect';
import { guardCommand } from './guard';
import { hookCommand } from './hook';
import { hooksCommand } from './hooks';

/** Every `k0maru` sub-command. Add one import and one entry per command. */
export const COMMANDS: Command[] = [
  scanCommand,
  recallCommand,
  mcpCommand,
  modelCommand,
  initCommand,
  flushCommand,
  offloadCommand,
  inspectCommand,
  guardCommand,
  hookCommand,
  hooksCommand,
];
