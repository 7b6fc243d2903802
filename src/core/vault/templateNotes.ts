/**
 * Whether a note is a template rather than knowledge: ADR tools ship one in every decision folder
 * (`template.md`, `adr-template.md`, `0000-template.md`, `0000-ladr-template.md`, MADR's `adr-template-minimal.md`)
 * and Obsidian vaults keep theirs in a `Templates/` folder. A template talks about "the decision", "status",
 * "consequences" and "section titles" in general, so it is close to every question about decisions — on the real
 * ADR corpus the five templates filled BM25's whole top 5 for "leave digits out of section titles" — while it
 * never answers one. Only exact template names count: `0010-django-templates.md` is a decision about templates.
 */
const TEMPLATE_FILE = /^(?:\d+[-_])?(?:(?:adr|madr|ladr|decision|record|note)[-_])?template(?:[-_](?:minimal|bare|full|short|long|lean|example))?\.md$/i;
const TEMPLATE_FOLDER = /^_?templates?$/i;

export function isTemplateNote(path: string): boolean {
  const parts = path.split('/');
  const file = parts.pop() ?? '';
  return TEMPLATE_FILE.test(file) || parts.some((p) => TEMPLATE_FOLDER.test(p));
}
