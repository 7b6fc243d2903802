import { parse, stringify } from 'yaml';

/**
 * SKILL.md writers and the validator the tests (and `distill`) run on every export.
 * Rules (platform notes): Agent Skills — `name` 1–64 of [a-z0-9-] equal to the folder name, `description`
 * non-empty ≤ 1024 chars; Hermes — name ^[a-z0-9][a-z0-9._-]*$, description ≤ 1024, non-empty body, optional
 * version / platforms / metadata.hermes.{tags,category}; omp — description required, reads the same layout.
 * We generate names valid under all three (the strictest rule: Agent Skills).
 */
export type SkillFlavor = 'agent-skills' | 'hermes' | 'omp';

export const MAX_SKILL_NAME = 64;
export const MAX_DESCRIPTION = 1024;
const AGENT_SKILLS_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const HERMES_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const AGENT_SKILLS_KEYS = new Set(['name', 'description', 'license', 'allowed-tools', 'metadata', 'compatibility']);

/** A name valid for every flavor: lowercase words joined by single hyphens, at most 64 chars. */
export function skillName(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = slug.slice(0, MAX_SKILL_NAME).replace(/-+$/, '');
  return cut || 'skill';
}

export function clampDescription(d: string): string {
  const one = d.replace(/\s+/g, ' ').trim();
  return one.length <= MAX_DESCRIPTION ? one : `${one.slice(0, MAX_DESCRIPTION - 1)}…`;
}

export interface SkillDoc {
  name: string;
  description: string;
  body: string;
  tags: string[];
  category?: string;
}

export function renderSkill(flavor: SkillFlavor, doc: SkillDoc): string {
  const fm: Record<string, unknown> = { name: doc.name, description: clampDescription(doc.description) };
  if (flavor === 'hermes') {
    fm.version = '1.0.0';
    fm.metadata = { hermes: { tags: doc.tags, category: doc.category ?? 'debugging' } };
  } else {
    // Agent Skills allow free-form string metadata only.
    fm.metadata = { tags: doc.tags.join(', '), source: 'k0maru distill_session_skill' };
  }
  return `---\n${stringify(fm, { lineWidth: 0 }).trimEnd()}\n---\n\n${doc.body.trim()}\n`;
}

export interface SkillValidation {
  ok: boolean;
  errors: string[];
  frontmatter?: Record<string, unknown>;
}

export function validateSkill(text: string, flavor: SkillFlavor, folderName: string): SkillValidation {
  const errors: string[] = [];
  const m = text.match(/^---\n([\s\S]*?)\n---\n([\s\S]*)$/);
  if (!m) return { ok: false, errors: ['SKILL.md must start with a --- YAML frontmatter block closed by ---'] };
  let fm: unknown;
  try {
    fm = parse(m[1]);
  } catch (err) {
    return { ok: false, errors: [`frontmatter is not valid YAML: ${(err as Error).message}`] };
  }
  if (!fm || typeof fm !== 'object' || Array.isArray(fm)) return { ok: false, errors: ['frontmatter must be a mapping'] };
  const data = fm as Record<string, unknown>;
  const name = data.name;
  if (typeof name !== 'string' || !name) errors.push('name is required');
  else {
    if (flavor === 'hermes' ? !HERMES_NAME.test(name) : !AGENT_SKILLS_NAME.test(name)) errors.push(`name "${name}" has characters outside the allowed set`);
    if (name.length > MAX_SKILL_NAME) errors.push(`name is longer than ${MAX_SKILL_NAME} characters`);
    if (name !== folderName) errors.push(`name "${name}" must equal the folder name "${folderName}"`);
  }
  const d = data.description;
  if (typeof d !== 'string' || !d.trim()) errors.push('description is required and must be a non-empty string');
  else if (d.length > MAX_DESCRIPTION) errors.push(`description is ${d.length} characters (max ${MAX_DESCRIPTION})`);
  if (flavor === 'agent-skills') for (const k of Object.keys(data)) if (!AGENT_SKILLS_KEYS.has(k)) errors.push(`unknown frontmatter key "${k}"`);
  if (flavor === 'hermes') {
    const meta = data.metadata as { hermes?: { tags?: unknown } } | undefined;
    if (meta?.hermes?.tags !== undefined && !Array.isArray(meta.hermes.tags)) errors.push('metadata.hermes.tags must be a list');
  }
  if (!m[2].trim()) errors.push('the skill body must not be empty');
  return { ok: errors.length === 0, errors, frontmatter: data };
}
