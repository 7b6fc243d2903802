import { resolve } from 'node:path';
import { initVault, type InitReport } from '../../core/vault/init';
import { EXIT, writeJson, writeLine, type Command } from '../command';
import type { IntegrationReport } from '../../core/install/index';

export function formatInitReport(r: InitReport): string {
  const lines = [
    r.mode === 'bound'
      ? `k0maru bound ${r.projectRoot} to the vault ${r.notesRoot}`
      : `k0maru initialised in ${r.projectRoot} (notes in .k0maru/wiki/)`,
  ];
  for (const p of r.created) lines.push(`  created  ${p}`);
  for (const p of r.updated) lines.push(`  updated  ${p}`);
  for (const p of r.found) lines.push(`  found    ${p}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  if (!r.created.length && !r.updated.length) lines.push('Nothing to do: already initialised.');
  lines.push('Next: edit the vision note, then run `k0maru scan`.');
  return lines.join('\n');
}

function formatIntegrations(r: IntegrationReport): string {
  const lines = ['Agent integrations:'];
  for (const p of [...r.agents.changed, ...(r.hooks?.changed ?? [])]) lines.push(`  wrote    ${p}`);
  for (const p of [...r.agents.unchanged, ...(r.hooks?.unchanged ?? [])]) lines.push(`  ok       ${p}`);
  for (const k of r.agents.kept) lines.push(`  kept     ${k}: it already has a different 'k0maru' server entry`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  if (!r.agents.changed.includes(r.agents.windsurfFile) && !r.agents.unchanged.includes(r.agents.windsurfFile)) {
    lines.push(`Windsurf reads only ${r.agents.windsurfFile}; add this (or re-run with --global):`, r.agents.windsurfSnippet);
  }
  return lines.join('\n');
}

function formatUninstall(r: { agents: { restored: string[]; edited: string[] }; hooks: { restored: string[]; edited: string[] } }): string {
  const lines = ['Removed the k0maru agent integrations:'];
  for (const p of [...r.agents.restored, ...r.hooks.restored]) lines.push(`  restored ${p}`);
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
    else writeLine(io.stdout, `${formatInitReport(report)}\n${formatIntegrations(integrations)}`);
    return EXIT.OK;
  },
};
