import { resolve } from 'node:path';
import { initVault, type InitReport } from '../../core/vault/init';
import { EXIT, writeJson, writeLine, type Command } from '../command';
import type { IntegrationReport } from '../../core/install/index';

export function formatInitReport(r: InitReport, opts: { install?: boolean } = {}): string {
  const lines = [
    r.mode === 'bound'
      ? `k0maru bound ${r.projectRoot} to the vault ${r.notesRoot}`
      : `k0maru initialised in ${r.projectRoot} (notes in .k0maru/wiki/)`,
  ];
  for (const p of r.created) lines.push(`  created  ${p}`);
  for (const p of r.updated) lines.push(`  updated  ${p}`);
  for (const p of r.found) lines.push(`  found    ${p}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  const nothing = !r.created.length && !r.updated.length;
  // With --install the integrations below are the news: "nothing to do" would contradict the files listed next.
  if (nothing) lines.push(opts.install ? 'The vault was already initialised: no vault file changed.' : 'Nothing to do: already initialised.');
  if (!opts.install) lines.push('Next: edit the vision note, then run `k0maru scan`.');
  return lines.join('\n');
}

function formatIntegrations(r: IntegrationReport): string {
  const wrote = r.agents.changed.length + (r.hooks?.changed.length ?? 0);
  const lines = [wrote ? `Agent integrations: wrote ${wrote} file(s).` : 'Agent integrations: every file was already up to date.'];
  for (const p of [...r.agents.changed, ...(r.hooks?.changed ?? [])]) lines.push(`  wrote    ${p}`);
  for (const p of [...r.agents.unchanged, ...(r.hooks?.unchanged ?? [])]) lines.push(`  ok       ${p}`);
  for (const k of r.agents.kept) lines.push(`  kept     ${k}: it already has a different 'k0maru' server entry`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  if (!r.agents.changed.includes(r.agents.windsurfFile) && !r.agents.unchanged.includes(r.agents.windsurfFile)) {
    lines.push(`Windsurf reads only ${r.agents.windsurfFile}; add this (or re-run with --global):`, r.agents.windsurfSnippet);
  }
  if (wrote) lines.push('Next: commit .k0maru/ and the files above, then restart your agent so it starts the k0maru server.');
  return lines.join('\n');
}

type Undone = { restored: string[]; deleted: string[]; edited: string[] };

function formatUninstall(r: { agents: Undone; hooks: Undone }): string {
  const total = [r.agents, r.hooks].reduce((n, u) => n + u.restored.length + u.deleted.length + u.edited.length, 0);
  const lines = [total ? 'Removed the k0maru agent integrations:' : 'No k0maru agent integration was installed here: nothing changed.'];
  for (const p of [...r.agents.deleted, ...r.hooks.deleted]) lines.push(`  deleted  ${p}`);
  for (const p of [...r.agents.restored, ...r.hooks.restored]) lines.push(`  restored ${p} (back to its content before install)`);
  for (const p of [...r.agents.edited, ...r.hooks.edited]) lines.push(`  edited   ${p} (changed since install: only our entry removed)`);
  return lines.join('\n');
}

export const initCommand: Command = {
  name: 'init',
  summary: 'Create .k0maru/ (wiki, refs, git-ignored index) here, or bind an existing Obsidian vault with --vault',
  usage: 'init [DIR] [--vault PATH] [--install [--global]] [--uninstall] [--json]',
  options: { install: { type: 'boolean' }, uninstall: { type: 'boolean' }, global: { type: 'boolean' } },
  allowPositionals: true,
  async run({ positionals, values, vault, io, json }) {
    const projectRoot = resolve(io.cwd, positionals[0] ?? '.');
    if (values.uninstall) {
      const { uninstallIntegrations } = await import('../../core/install/index');
      const r = uninstallIntegrations(projectRoot);
      if (json) writeJson(io.stdout, r);
      else writeLine(io.stdout, formatUninstall(r));
      return EXIT.OK;
    }
    // For init, --vault names the Obsidian vault to bind (resolved from where the user typed it).
    const report = initVault({ projectRoot, vault: vault === undefined ? undefined : resolve(io.cwd, vault) });
    if (!values.install) {
      if (json) writeJson(io.stdout, report);
      else writeLine(io.stdout, formatInitReport(report));
      return EXIT.OK;
    }
    const { installIntegrations } = await import('../../core/install/index');
    const integrations = installIntegrations(projectRoot, { global: !!values.global });
    if (json) writeJson(io.stdout, { ...report, integrations });
    else writeLine(io.stdout, `${formatInitReport(report, { install: true })}\n${formatIntegrations(integrations)}`);
    return EXIT.OK;
  },
};
