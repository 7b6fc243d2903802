import { installHooks, uninstallHooks } from '../../core/guard/hookInstaller';
import { repoRoot } from '../../core/guard/diffSource';
import { K0Error } from '../../core/errors';
import { EXIT, writeJson, writeLine, type Command } from '../command';

export const hooksCommand: Command = {
  name: 'hooks',
  summary: 'Install or remove the pre-commit guard and the Claude Code Stop hook (idempotent, restores exactly)',
  usage: 'hooks install [--no-claude] [--no-git] [--command CMD] | hooks uninstall',
  options: { 'no-claude': { type: 'boolean' }, 'no-git': { type: 'boolean' }, command: { type: 'string' } },
  allowPositionals: true,
  async run({ positionals, values, io, json }) {
    const root = await repoRoot(io.cwd);
    const action = positionals[0];
    if (action === 'install') {
      const r = installHooks(root, { claude: !values['no-claude'], git: !values['no-git'], command: values.command as string | undefined });
      if (json) writeJson(io.stdout, r);
      else writeLine(io.stdout, `k0maru hooks installed (${r.target}): ${r.changed.length} file(s) changed${r.changed.length ? ': ' + r.changed.join(', ') : ''}; ${r.unchanged.length} already up to date`);
      return EXIT.OK;
    }
    if (action === 'uninstall') {
      const r = uninstallHooks(root);
      if (json) writeJson(io.stdout, r);
      else writeLine(io.stdout, [`k0maru hooks removed: ${r.deleted.length} file(s) deleted, ${r.restored.length} restored, ${r.edited.length} edited in place`, ...r.deleted.map((p) => `  deleted  ${p}`), ...r.restored.map((p) => `  restored ${p}`), ...r.edited.map((p) => `  edited   ${p}`)].join('\n'));
      return EXIT.OK;
    }
    throw new K0Error('INVALID_ARGUMENT', `expected 'install' or 'uninstall', got '${action ?? ''}'`);
  },
};
