// The skill distiller (dist/extensionDistill.js), loaded on the first "Distill Skill": it carries zod, which
// would double the compile time of the tools bundle every other command loads. See ./core.ts for the split.
import type * as Distill from '../core/distill/distill';

/* eslint-disable @typescript-eslint/no-require-imports */
export const distillSkill: typeof Distill.distillSkill = (...a) => (require('../core/distill/distill') as typeof Distill).distillSkill(...a);
