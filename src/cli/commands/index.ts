import type { Command } from '../command';
import { scanCommand } from './scan';
import { recallCommand } from './recall';
import { modelCommand } from './model';
import { initCommand } from './init';
import { flushCommand } from './flush';
import { offloadCommand } from './offload';
import { inspectCommand } from './inspect';

/** Every `k0maru` sub-command. Add one import and one entry per command. */
export const COMMANDS: Command[] = [
  scanCommand,
  recallCommand,
  modelCommand,
  initCommand,
  flushCommand,
  offloadCommand,
  inspectCommand,
];
