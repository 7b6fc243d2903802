import type { AdrRules } from './types';

/** The `project` filter of guard_check and get_project_loadout: frontmatter `project`, or a folder of that name. */
export function projectMatches(a: AdrRules, project?: string): boolean {
  if (!project) return true;
  const p = project.toLowerCase();
  return !a.project || a.project.toLowerCase() === p || a.adrPath.toLowerCase().split('/').includes(p);
}
