import { K0Error } from '../../core/errors';
import { withProject } from '../../core/project';
import { verifyNotes } from '../../core/stale';
import { EXIT, writeJson, writeLine, type Command } from '../command';

export const verifyCommand: Command = {
  name: 'verify',
  summary: 'Mark notes as checked against the code: writes verified_at: <commit> (HEAD by default) into their frontmatter',
  usage: 'verify NOTE… [--commit REV] [--json]   (NOTE: a path, file name or title)',
  options: { commit: { type: 'string' } },
  allowPositionals: true,
  async run({ values, positionals, vault, io, json }) {
    if (!positionals.length) throw new K0Error('INVALID_ARGUMENT', 'name the notes to verify: k0maru verify decisions/adr-003.md');
    return withProject({ vault, cwd: io.cwd, env: io.env }, async (project) => {
      const done = await verifyNotes(project, positionals, { commit: values.commit as string | undefined, cwd: io.cwd });
      if (json) writeJson(io.stdout, { verified: done });
      else for (const d of done) writeLine(io.stdout, `✓ ${d.path}: verified_at ${d.verifiedAt.slice(0, 12)}`);
      return EXIT.OK;
    });
  },
};
