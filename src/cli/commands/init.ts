import { resolve } from 'node:path';
import { initVault, type InitReport } from '../../core/vault/init';
import { EXIT, writeJson, writeLine, type Command } from '../command';

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

export const initCommand: Command = {
  name: 'init',
  summary: 'Create .k0maru/ (wiki, refs, git-ignored index) here, or bind an existing Obsidian vault with --vault',
  usage: 'init [DIR] [--vault PATH] [--json]',
  allowPositionals: true,
  // `--install` (agent configs and hooks) will be handled here, after initVault, by the MCP/installer work.
  async run({ positionals, vault, io, json }) {
    const projectRoot = resolve(io.cwd, positionals[0] ?? '.');
    // For init, --vault names the Obsidian vault to bind (resolved from where the user typed it).
    const report = initVault({ projectRoot, vault: vault === undefined ? undefined : resolve(io.cwd, vault) });
    if (json) writeJson(io.stdout, report);
    else writeLine(io.stdout, formatInitReport(report));
    return EXIT.OK;
  },
};
