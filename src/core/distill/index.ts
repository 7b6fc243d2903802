/** Public surface of the distiller (CLI, MCP). */
export { distillSkill, distillInputSchema, MAX_RAW_TRACE_BYTES, type DistillInput, type DistillResult, type DistillOptions, type SkillExport } from './distill';
export { ERROR_FAMILIES, matchFamily, genericFamily, type ErrorFamily } from './families';
export { validateSkill, renderSkill, skillName, type SkillFlavor, type SkillValidation } from './skillFormat';
export { renderPlaybook, RUNTIME_LABEL } from './playbook';
