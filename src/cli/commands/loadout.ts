import { withProject } from '../../core/project';
import { getProjectLoadout } from '../../core/loadout/loadout';
import { EXIT, writeJson, writeLine, type Command } from '../command';

export const loadoutCommand: Command = {
  name: 'loadout',
  summary: 'Print the ≤ 300-token session loadout: vision, stack, active invariants, recent logs',
  usage: 'loadout [--diff] [--branch B] [--project NAME] [--budget N] [--json]',
  options: { diff: { type: 'boolean' }, branch: { type: 'string' }, project: { type: 'string' }, budget: { type: 'string' } },
  async run({ values, vault, io, json }) {
    const budget = values.budget === undefined ? undefined : Number(values.budget);
    return withProject({ vault, cwd: io.cwd, env: io.env }, async (project) => {
      const l = await getProjectLoadout(project, { diff: !!values.diff, branch: values.branch as string | undefined, projectName: values.project as string | undefined, budget });
      if (json) writeJson(io.stdout, l);
      else writeLine(io.stdout, l.markdown);
      return EXIT.OK;
    });
  },
};
